// Plain JavaScript run by node itself. Bundles the service for `npm start` (docs/performance.md,
// "Start-up, fourth round"): src/main.ts and the telemetry module passed with `--import` become
// dist/server/*.mjs (esbuild; most npm packages stay imports, resolved from node_modules at run time,
// see BUNDLED), so that `npm start` runs plain node without loading some two hundred TypeScript files
// through tsx.
//
//   node scripts/build-server.mjs             build (the npm `prepare` hook: npm install / npm ci)
//   node scripts/build-server.mjs --if-stale  build only when a file it is made from is newer than
//                                             the bundle (the npm `prestart` hook): an edited
//                                             checkout never runs stale code.
//
// A source file that resolves a path from its own module (`import.meta.url`: the migrations folder,
// web/dist, createRequire for solc and the contracts, the tracing loader hook) sees the URL of its
// file in src/, as under tsx, not the bundle's: the bundle is always run from this checkout.
/* global console, process */
import { readdirSync, realpathSync, rmSync, statSync, utimesSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = path.join(ROOT, 'dist', 'server');
/** The entry points, by output name: `node --import ./dist/server/register.mjs dist/server/main.mjs`. */
const ENTRY_POINTS = { main: 'src/main.ts', register: 'src/telemetry/register.ts' };
/** Its time is the bundle's (set to the start of the build that wrote it). */
export const STAMP = path.join(OUT_DIR, 'main.mjs');
/**
 * What the bundle is made from: every file and folder of src/ (a deleted or added file changes its
 * folder's time), this script, package.json, the TypeScript settings, and the installed packages
 * (npm rewrites node_modules/.package-lock.json at each install: some packages are bundled in).
 */
const INPUTS = [
  'src',
  'scripts/build-server.mjs',
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'node_modules/.package-lock.json',
];

/**
 * The rule of `--if-stale`: rebuild when there is no bundle or when any input changed after it was
 * written. Times in milliseconds; `bundleTime` undefined when there is no bundle.
 * @param {number | undefined} bundleTime
 * @param {Iterable<number>} inputTimes
 */
export function isStale(bundleTime, inputTimes) {
  if (bundleTime === undefined) return true;
  for (const time of inputTimes) if (time > bundleTime) return true;
  return false;
}

/** Modification times of the inputs (files and folders, src/ walked). @returns {number[]} */
export function inputTimes(root = ROOT) {
  /** @type {number[]} */
  const times = [];
  const walk = (/** @type {string} */ file) => {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat) return;
    times.push(stat.mtimeMs);
    if (stat.isDirectory()) for (const name of readdirSync(file)) walk(path.join(file, name));
  };
  for (const input of INPUTS) walk(path.join(root, input));
  return times;
}

/** @returns {number | undefined} */
export function bundleTime(stamp = STAMP) {
  return statSync(stamp, { throwIfNoEntry: false })?.mtimeMs;
}

/** A bundled module's `import.meta.url` is that of its source file, relative to the bundle. */
const ownModuleUrl = {
  name: 'own-module-url',
  /** @param {import('esbuild').PluginBuild} build */
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      const fromBundle = path.relative(OUT_DIR, args.path).split(path.sep).join('/');
      return {
        contents: source.replaceAll(
          'import.meta.url',
          `new URL(${JSON.stringify(fromBundle)}, import.meta.url).href`,
        ),
        loader: 'ts',
      };
    });
  },
};

/**
 * npm packages bundled in, with the src/ files: ES modules of many small files whose loading cost
 * more than their code (viem and its hashing and curve libraries, typebox, kysely; about 0.5 s of
 * CPU at start-up, docs/performance.md), and the CommonJS packages listed below. The others stay
 * imports resolved from node_modules at run time: packages that read their own files (PGlite's
 * WebAssembly, swagger-ui's pages, pino's transports) or that are loaded lazily (oidc-provider,
 * OpenTelemetry).
 */
const BUNDLED = new Set([
  'viem',
  'ox',
  'abitype',
  '@noble/curves',
  '@noble/hashes',
  '@scure/base',
  '@scure/bip32',
  '@scure/bip39',
  'typebox',
  'kysely',
  // CommonJS packages loaded at every start, bundled in with their dependencies (fifth round: about
  // 0.1 s less CPU before /healthz; resolving and reading some 350 files cost more than their code):
  // Fastify, its plugins of this service, ajv and prom-client. They read no files of their own at run
  // time. Not here: pino (its transports start workers from files of its package), @fastify/swagger
  // (reads its package.json), @fastify/swagger-ui (serves its files), pg and PGlite, the packages
  // loaded lazily, and @opentelemetry/api (one copy per process: the tracer is global).
  ...[
    ['fastify', 'avvio', 'find-my-way', 'light-my-request', 'fastify-plugin'],
    ['@fastify/error', '@fastify/forwarded', '@fastify/proxy-addr', '@fastify/deepmerge'],
    ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler', '@fastify/merge-json-schemas'],
    ['fast-json-stringify', 'json-schema-ref-resolver', 'ajv', 'ajv-formats', 'json-schema-traverse'],
    ['fast-uri', 'fast-deep-equal', 'dequal', 'rfdc', 'secure-json-parse', 'safe-stable-stringify'],
    ['fast-querystring', 'fast-decode-uri-component', 'ret', 'safe-regex2', 'toad-cache', 'semver'],
    ['fastq', 'reusify', 'process-warning', 'abstract-logging', 'cookie', 'set-cookie-parser'],
    ['prom-client', 'bintrees', 'tdigest', '@fastify/cookie', '@fastify/under-pressure'],
    ['@fastify/rate-limit', 'ip-address', '@lukeed/ms'],
    ['@fastify/static', '@fastify/send', '@fastify/accept-negotiator', 'mime', 'escape-html'],
    ['content-disposition', 'http-errors', 'depd', 'setprototypeof', 'statuses', 'inherits', 'toidentifier'],
  ].flat(),
  // The rate limits' Redis client (CommonJS, loaded at every start, REDIS_URL or not:
  // src/http/rate-limits.ts imports it) and the login's OpenID client with jose (ES modules of many
  // files): about 0.08 s less CPU before /healthz together.
  ...['ioredis', '@ioredis/commands', 'cluster-key-slot', 'denque', 'redis-errors', 'redis-parser'],
  ...['standard-as-callback', 'lodash.defaults', 'lodash.isarguments', 'debug', 'ms'],
  ...['openid-client', 'oauth4webapi', 'jose'],
]);
const packageName = (/** @type {string} */ specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');

/**
 * A package outside BUNDLED stays an import, unless a bundled package imports its own copy of it
 * (a nested node_modules): the bundle's import would find the top-level copy instead.
 */
const externalPackages = {
  name: 'external-packages',
  /** @param {import('esbuild').PluginBuild} build */
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'inner' || BUNDLED.has(packageName(args.path))) return undefined;
      if (args.importer.includes(`${path.sep}node_modules${path.sep}`)) {
        const options = { kind: args.kind, pluginData: 'inner' };
        const own = await build.resolve(args.path, { ...options, resolveDir: args.resolveDir });
        const top = await build.resolve(args.path, { ...options, resolveDir: ROOT });
        if (own.path !== top.path) {
          return { path: own.path, sideEffects: own.sideEffects };
        }
      }
      return { path: args.path, external: true };
    });
  },
};

export async function buildServer() {
  const esbuild = await import('esbuild');
  const started = Date.now();
  const { metafile } = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: ENTRY_POINTS,
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    // Lazily imported modules (tracing, when configured) stay separate files, loaded when imported.
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: true,
    // For debugging with NODE_OPTIONS=--enable-source-maps (npm start runs without it: decoding the
    // map costs the process for good, docs/performance.md "Source maps"). The mappings, not the
    // sources' text (the files are in src/): main.mjs.map is a fraction of its size without it.
    sourcesContent: false,
    // Keeps the function and class names of the stack traces and logs.
    keepNames: true,
    logLevel: 'warning',
    // The bundled CommonJS packages require node's modules and the packages left outside: esbuild's
    // __require calls the module scope's `require`, which an ES module lacks.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins: [externalPackages, ownModuleUrl],
    metafile: true,
  });
  // Chunks of earlier builds (their names hold a hash of their contents) go.
  const written = new Set(Object.keys(metafile.outputs).map((file) => path.resolve(ROOT, file)));
  for (const name of readdirSync(OUT_DIR)) {
    if (!written.has(path.join(OUT_DIR, name))) rmSync(path.join(OUT_DIR, name), { force: true });
  }
  // The bundle dates from when its sources were read: a file saved during the build is newer.
  const startedAt = new Date(started);
  utimesSync(STAMP, startedAt, startedAt);
  console.log(`service bundled into dist/server (${Date.now() - started} ms)`);
}

// Run as a script (not imported by a test).
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  if (!process.argv.includes('--if-stale') || isStale(bundleTime(), inputTimes())) await buildServer();
}
