// The real process, as `npm start` runs it (the bundle of scripts/build-server.mjs, rebuilt here when
// stale): a bad variable stops start-up naming it; SIGTERM lets a request in flight finish and then
// exits 0; the development chain starts after the server answers and is never left behind.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './free-port.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'mrs-process-'));
beforeAll(() => {
  execFileSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { stdio: 'inherit' });
}, 120_000);
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function startService(env: Record<string, string>) {
  // The command of `npm start` (package.json), without npm: the test signals the service itself.
  const args = ['--import', './dist/server/register.mjs', 'dist/server/main.mjs'];
  const child = spawn(process.execPath, args, {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the service process', () => {
  it('refuses to start with a bad variable and names it', async () => {
    const service = startService({ PORT: 'eighty' });
    expect(await service.exited).toBe(2);
    expect(service.output()).toContain('PORT');
  });

  it('answers, then on SIGTERM finishes the request in flight and exits 0', async () => {
    const port = await freePort();
    const service = startService({
      PORT: String(port),
      DATABASE_URL: process.env.DATABASE_URL ?? '',
      ADMIN_TOKEN: 'process-test-owner-token',
    });
    const base = `http://127.0.0.1:${port}`;
    let healthy = false;
    for (let i = 0; i < 300 && !healthy; i++) {
      healthy = await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      );
      if (!healthy) await new Promise((r) => setTimeout(r, 500));
    }
    expect(healthy).toBe(true);
    // A request whose body is still arriving when SIGTERM comes must still be answered.
    const controller = new AbortController();
    const body = new ReadableStream({
      start(stream) {
        stream.enqueue(new TextEncoder().encode('{"name":'));
        setTimeout(() => {
          stream.enqueue(new TextEncoder().encode('1}'));
          stream.close();
        }, 1000);
      },
    });
    const inFlight = fetch(`${base}/admin/v1/partners`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer process-test-owner-token' },
      body,
      duplex: 'half',
      signal: controller.signal,
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 300));
    service.child.kill('SIGTERM');
    const signalledAt = Date.now();
    const response = await inFlight;
    // 400 for `{"name":1}` proves the whole body was read and validated after SIGTERM.
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 3000, field: 'body.name' });
    expect(await service.exited).toBe(0);
    // Promptly: not held open by idle keep-alive connections (whose timeout is 72 s).
    expect(Date.now() - signalledAt).toBeLessThan(20_000);
    expect(service.output()).toContain('shutting down');
  }, 200_000);

  it('answers before the development chain has started, and a SIGTERM then still stops the chain', async () => {
    const port = await freePort();
    const chainDataDir = mkdtempSync(path.join(tmpdir(), 'mrs-process-chain-'));
    let service: ReturnType<typeof startWithChain> | undefined;
    try {
      service = startWithChain(port, chainDataDir);
      let healthy = false;
      for (let i = 0; i < 3000 && !healthy; i++) {
        healthy = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        );
        if (!healthy) await new Promise((r) => setTimeout(r, 20));
      }
      expect(healthy).toBe(true);
      // The chain starts after the server answers (docs/performance.md): it is not ready yet.
      expect(service.output()).not.toContain('development chain started');
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
      // The shutdown waited for the chain it was starting and stopped it: no process of it is left.
      const chains = execFileSync('ps', ['-eww', '-o', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(chainDataDir));
      expect(chains).toEqual([]);
    } finally {
      await stopLeftovers(service, chainDataDir);
    }
  }, 200_000);

  it("npm run demo started as the port opens waits for the development chain's token, then seeds once", async () => {
    const port = await freePort();
    const chainDataDir = mkdtempSync(path.join(tmpdir(), 'mrs-process-demo-'));
    const base = `http://127.0.0.1:${port}`;
    let service: ReturnType<typeof startWithChain> | undefined;
    try {
      service = startWithChain(port, chainDataDir, {
        ADMIN_TOKEN: 'process-test-owner-token',
        // As README's first step starts it: the example partner server's loopback webhook URL is let in.
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
      });
      // The moment anything answers on the port (the start-up server's 503 counts).
      let open = false;
      for (let i = 0; i < 3000 && !open; i++) {
        open = await fetch(`${base}/healthz`).then(
          () => true,
          () => false,
        );
        if (!open) await new Promise((r) => setTimeout(r, 20));
      }
      expect(open).toBe(true);
      // What `npm run demo` runs (package.json), pointed at this service.
      const demo = spawn(process.execPath, ['--import', 'tsx', 'src/demo/cli.ts'], {
        env: { ...process.env, MRS_BASE_URL: base, ADMIN_TOKEN: 'process-test-owner-token' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let [out, err] = ['', ''];
      demo.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
      demo.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
      const code = await new Promise<number | null>((resolve) => demo.on('exit', resolve));
      console.log(`npm run demo, its waits:\n${err}`);
      expect(code, `${out}\n${err}\n${service.output()}`).toBe(0);
      expect(out).toContain('Demo campaign ready');
      // The service's log says the token was registered after readiness, and only one partner exists:
      // nothing was created before the asset was there.
      expect(service.output()).toContain('development chain started');
      const partners = await fetch(`${base}/admin/v1/partners`, {
        headers: { authorization: 'Bearer process-test-owner-token' },
      }).then((r) => r.json() as Promise<{ items: unknown[] }>);
      expect(partners.items).toHaveLength(1);
      service.child.kill('SIGTERM');
      expect(await service.exited).toBe(0);
    } finally {
      await stopLeftovers(service, chainDataDir);
    }
  }, 200_000);

  it('killed with SIGKILL, leaves no development chain behind', async () => {
    const chainDataDir = mkdtempSync(path.join(tmpdir(), 'mrs-process-orphan-'));
    let service: ReturnType<typeof startWithChain> | undefined;
    try {
      service = startWithChain(await freePort(), chainDataDir);
      for (let i = 0; i < 1500 && !service.output().includes('development chain started'); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(chainProcesses(chainDataDir)).toHaveLength(1);
      // No shutdown runs: the chain must notice on its own that its parent is gone.
      service.child.kill('SIGKILL');
      await service.exited;
      for (let i = 0; i < 100 && chainProcesses(chainDataDir).length > 0; i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(chainProcesses(chainDataDir)).toEqual([]);
    } finally {
      await stopLeftovers(service, chainDataDir);
    }
  }, 200_000);
});

/**
 * After a test with the development chain, passing or not: a failing run must leave neither the
 * service nor its chain running for the rest of the suite (five services once ran for hours beside it).
 */
async function stopLeftovers(service: ReturnType<typeof startWithChain> | undefined, chainDataDir: string) {
  if (service?.child.exitCode === null && service.child.signalCode === null) {
    service.child.kill('SIGKILL');
    await service.exited;
  }
  for (const { pid } of chainProcesses(chainDataDir)) process.kill(pid, 'SIGKILL');
  rmSync(chainDataDir, { recursive: true, force: true });
}

/** The service on PGlite with the development chain, both keeping their data in `dataDir`. */
function startWithChain(port: number, dataDir: string, env: Record<string, string> = {}) {
  return startService({
    PORT: String(port),
    DATABASE_URL: '',
    DATA_DIR: dataDir,
    DEV_CHAIN: 'true',
    WALLET_KEK: 'ab'.repeat(32),
    ...env,
  });
}

/** Processes whose command line names `dir` (the development chain's config file lives in it). */
function chainProcesses(dir: string): Array<{ pid: number; args: string }> {
  return execFileSync('ps', ['-eww', '-o', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .map((line) => /^\s*(\d+)\s+(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null && (m[2] ?? '').includes(dir))
    .map((m) => ({ pid: Number(m[1]), args: m[2] ?? '' }));
}
