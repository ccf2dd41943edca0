// Builds the web pages for end-to-end tests from the sources, once a run, into the run's own folder
// (so a stale web/dist never hides a change), and measures what a first visit downloads.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { inject } from 'vitest';

const run = promisify(execFile);

/**
 * The folder of the pages built for this run, which the browser test files serve and only read. The
 * first file to ask builds them; the others, in any worker process, wait for that build. Each file
 * built its own before: 14 Vite builds a CI run, 9.5 s of CPU each on two busy cores (2026-12-02).
 */
export async function builtWeb(): Promise<string> {
  const runFolder = inject('runFolder');
  const dist = path.join(runFolder, 'web');
  const done = path.join(runFolder, 'web.built');
  const failed = path.join(runFolder, 'web.failed');
  try {
    // mkdir is atomic: one caller of the run wins it and builds.
    mkdirSync(path.join(runFolder, 'web.building'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return waitForBuild(dist, done, failed);
  }
  try {
    await buildWeb(dist);
  } catch (err) {
    writeFileSync(failed, err instanceof Error ? err.message : String(err));
    throw err;
  }
  writeFileSync(done, '');
  return dist;
}

async function waitForBuild(dist: string, done: string, failed: string): Promise<string> {
  for (let waited = 0; waited < 300_000; waited += 200) {
    if (existsSync(done)) return dist;
    if (existsSync(failed)) throw new Error(`the pages' build failed: ${readFileSync(failed, 'utf8')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error('the pages were not built within 5 minutes');
}

async function buildWeb(outDir: string): Promise<void> {
  await run(
    process.execPath,
    ['node_modules/vite/bin/vite.js', 'build', '--config', 'web/vite.config.ts', '--logLevel', 'warn'],
    {
      // Vitest sets NODE_ENV=test, which would make Vite bundle React's development build: the
      // tests drive, and measure, what `npm run build:web` ships.
      env: { ...process.env, NODE_ENV: 'production', WEB_OUT_DIR: outDir },
    },
  );
}

/** Gzipped bytes of the JavaScript a page's index.html loads (entry script and preloaded chunks). */
export function firstLoadJsGzipBytes(
  distDir: string,
  page: 'app' | 'console',
): { files: string[]; bytes: number } {
  const html = readFileSync(path.join(distDir, page, 'index.html'), 'utf8');
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+\.js)"/g)].map((m) => m[1] as string);
  const bytes = files.reduce((sum, file) => sum + gzipSync(readFileSync(path.join(distDir, file))).length, 0);
  return { files, bytes };
}
