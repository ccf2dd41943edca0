// Builds the web pages for end-to-end tests into a folder of their own (so a stale web/dist never
// hides a change), and measures what a first visit downloads.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';

const run = promisify(execFile);

export async function buildWeb(outDir: string): Promise<void> {
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
