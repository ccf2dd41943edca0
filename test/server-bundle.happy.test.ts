// `npm start` runs a bundle of the service (scripts/build-server.mjs, docs/performance.md): built by
// `prepare`, rebuilt by `prestart` when a file it is made from is newer, so an edited checkout never
// runs stale code. The rule as a unit, then `npm start` in a copy of the checkout after an edit.
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// @ts-expect-error: plain JavaScript (no declarations), run by node itself.
import * as build from '../scripts/build-server.mjs';
import { freePort } from './free-port.ts';

const { isStale, inputTimes, bundleTime } = build as {
  isStale: (bundleTime: number | undefined, inputTimes: Iterable<number>) => boolean;
  inputTimes: (root?: string) => number[];
  bundleTime: (stamp?: string) => number | undefined;
};

const ROOT = path.resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(path.join(tmpdir(), 'mrs-bundle-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('the stale rule of prestart', () => {
  it('rebuilds without a bundle, or when an input is newer than it', () => {
    expect(isStale(undefined, [])).toBe(true);
    expect(isStale(1000, [])).toBe(false);
    expect(isStale(1000, [500, 1000])).toBe(false);
    expect(isStale(1000, [500, 1001, 20])).toBe(true);
  });

  it('sees a file edited, added or deleted anywhere under src/, and the build script', () => {
    const root = path.join(scratch, 'rule');
    const old = new Date('2026-01-01T00:00:00Z');
    const setAllOld = () => {
      for (const file of [
        'src/a/b',
        'src/a/b/c.ts',
        'src/a',
        'src',
        'scripts/build-server.mjs',
        'package.json',
      ])
        if (existsSync(path.join(root, file))) utimesSync(path.join(root, file), old, old);
    };
    mkdirSync(path.join(root, 'src/a/b'), { recursive: true });
    mkdirSync(path.join(root, 'scripts'));
    writeFileSync(path.join(root, 'src/a/b/c.ts'), 'export {};');
    writeFileSync(path.join(root, 'scripts/build-server.mjs'), '');
    writeFileSync(path.join(root, 'package.json'), '{}');
    setAllOld();
    const stamp = path.join(root, 'main.mjs');
    expect(bundleTime(stamp)).toBeUndefined();
    writeFileSync(stamp, '');
    const built = new Date('2026-01-02T00:00:00Z');
    utimesSync(stamp, built, built);
    expect(isStale(bundleTime(stamp), inputTimes(root))).toBe(false);

    writeFileSync(path.join(root, 'src/a/b/c.ts'), 'export const edited = 1;');
    expect(isStale(bundleTime(stamp), inputTimes(root))).toBe(true);
    setAllOld();
    writeFileSync(path.join(root, 'src/a/b/new.ts'), 'export {};');
    expect(isStale(bundleTime(stamp), inputTimes(root))).toBe(true);
    rmSync(path.join(root, 'src/a/b/new.ts'));
    setAllOld();
    expect(isStale(bundleTime(stamp), inputTimes(root))).toBe(false);
    rmSync(path.join(root, 'src/a/b/c.ts'));
    expect(isStale(bundleTime(stamp), inputTimes(root))).toBe(true);
    setAllOld();
    writeFileSync(path.join(root, 'scripts/build-server.mjs'), '// edited');
    expect(isStale(bundleTime(stamp), inputTimes(root))).toBe(true);
  });
});

describe('the npm scripts', () => {
  it('start runs node on the bundle, prestart checks it, prepare builds it', () => {
    const { scripts } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    // No --enable-source-maps: the first stack it maps decodes the bundle's whole map and keeps it,
    // and under the recommended 128 MiB old space the collector then took 39% of the CPU for good:
    // achieve 1,134/s against 12,812/s without the flag (docs/performance.md, "Source maps").
    expect(scripts.start).toBe('node --import ./dist/server/register.mjs dist/server/main.mjs');
    expect(scripts.prestart).toBe('node scripts/prestart.mjs');
    expect(scripts.prepare).toContain('node scripts/build-server.mjs');
    expect(readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n')).toContain('dist/');
  });
});

describe('npm start on an edited checkout', () => {
  it('rebuilds the bundle, serves the edited code, and runs the development chain from it', async () => {
    // A copy of the checkout (its own bundle, so that this test never rewrites the one other tests run).
    const checkout = path.join(scratch, 'checkout');
    for (const entry of ['src', 'scripts', 'package.json', 'tsconfig.json', 'web/build-if-missing.mjs'])
      cpSync(path.join(ROOT, entry), path.join(checkout, entry), { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(checkout, 'node_modules'));
    symlinkSync(path.join(ROOT, 'web/dist'), path.join(checkout, 'web/dist'));
    const built = await run(process.execPath, ['scripts/build-server.mjs'], checkout);
    expect(built.code).toBe(0);
    // What a start on PGlite loads from node_modules (docs/performance.md, "Start-up, fifth round"):
    // Fastify, its plugins, ioredis and the OpenID client are in the bundle; pg is required only by a
    // PostgreSQL pool.
    const bundle = readFileSync(path.join(checkout, 'dist/server/main.mjs'), 'utf8');
    const imported = [...bundle.matchAll(/^import .* from "([^"]+)";$/gm)].map((match) => match[1]);
    expect(imported).toContain('@electric-sql/pglite');
    for (const name of [
      'fastify',
      'ajv',
      'prom-client',
      '@fastify/static',
      'ioredis',
      'openid-client',
      'jose',
      'pg',
    ])
      expect(imported).not.toContain(name);
    // Edited after the build: the log line below tells which code runs.
    const main = path.join(checkout, 'src/main.ts');
    writeFileSync(main, readFileSync(main, 'utf8').replace("'database ready'", "'database ready (edited)'"));

    const port = await freePort();
    const dataDir = path.join(scratch, 'data');
    const child = spawn('npm', ['start'], {
      cwd: checkout,
      env: {
        ...process.env,
        DATABASE_URL: '',
        DATA_DIR: dataDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        WALLET_KEK: 'cd'.repeat(32),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise((resolve) => child.on('exit', resolve));
    try {
      let healthy = false;
      for (let i = 0; i < 600 && !healthy; i++) {
        healthy = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 200));
      }
      expect(healthy).toBe(true);
      expect(output).toContain('service bundled into dist/server');
      expect(output).toContain('database ready (edited)');
      // The migrations folder and the web pages are found from the bundle.
      expect((await fetch(`http://127.0.0.1:${port}/app/`)).status).toBe(200);
      // The OpenAPI document and its pages (swagger and swagger-ui read their own files).
      expect((await fetch(`http://127.0.0.1:${port}/docs/json`)).status).toBe(200);
      expect((await fetch(`http://127.0.0.1:${port}/docs`)).status).toBe(200);
      // The chain (viem, bundled in; solc and the contracts resolved from the source file's place).
      for (let i = 0; i < 600 && !output.includes('development chain started'); i++)
        await new Promise((r) => setTimeout(r, 200));
      expect(output).toContain('development chain started');
    } finally {
      // npm runs the service in a child: signal the group, as a terminal's Ctrl-C would.
      process.kill(-(child.pid as number), 'SIGTERM');
      await exited;
    }
    // npm ends on the signal; the service shuts down by itself, then no longer answers.
    let closed = false;
    for (let i = 0; i < 300 && !closed; i++) {
      closed = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        () => false,
        () => true,
      );
      if (!closed) await new Promise((r) => setTimeout(r, 100));
    }
    expect(closed).toBe(true);
  }, 240_000);
});

function run(command: string, args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}
