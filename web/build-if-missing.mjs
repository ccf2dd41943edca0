// Plain JavaScript run by node itself: `npm start` loads no TypeScript for this check (docs/performance.md).
// Builds the web pages (vite) so that `npm install && npm start` serves them on a clean machine.
// `--always` (the npm `prepare` hook, run by npm install / npm ci) rebuilds every time; without it
// (before `npm start`, through scripts/prestart.mjs) it builds only when web/dist is missing. Where
// vite is not installed (npm ci --omit=dev) it explains instead of failing: the service then answers
// /app with 503.
/* global console, process, URL */
import { existsSync, realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** @param {{ always: boolean }} options */
export async function buildWebIfMissing({ always }) {
  const config = fileURLToPath(new URL('./vite.config.ts', import.meta.url));
  const built = existsSync(fileURLToPath(new URL('./dist/app/index.html', import.meta.url)));
  if (built && !always) return;

  /** @type {typeof import("vite") | undefined} */
  let vite;
  try {
    vite = await import('vite');
  } catch {
    console.warn(
      'web pages not built: vite is not installed (dev dependencies omitted); run `npm run build:web` where it is.',
    );
    return;
  }
  await vite.build({ configFile: config, logLevel: 'warn' });
  console.log('web pages built into web/dist');
}

// Run as a script (not imported by scripts/prestart.mjs).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildWebIfMissing({ always: process.argv.includes('--always') });
}
