// Plain JavaScript run by node itself: `npm start` loads no TypeScript for this check (docs/performance.md).
// Builds the web pages (vite) so that `npm install && npm start` serves them on a clean machine.
// `--always` (the npm `prepare` hook, run by npm install / npm ci) rebuilds every time; without it
// (before `npm start`) it builds only when web/dist is missing. Where vite is not installed
// (npm ci --omit=dev) it explains instead of failing: the service then answers /app with 503.
/* global console, process, URL */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const config = fileURLToPath(new URL('./vite.config.ts', import.meta.url));
const built = existsSync(fileURLToPath(new URL('./dist/app/index.html', import.meta.url)));
const always = process.argv.includes('--always');

if (built && !always) process.exit(0);

/** @type {typeof import("vite") | undefined} */
let vite;
try {
  vite = await import('vite');
} catch {
  console.warn(
    'web pages not built: vite is not installed (dev dependencies omitted); run `npm run build:web` where it is.',
  );
  process.exit(0);
}
await vite.build({ configFile: config, logLevel: 'warn' });
console.log('web pages built into web/dist');
