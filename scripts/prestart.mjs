// Plain JavaScript run by node itself: the npm `prestart` hook, one process for both checks (each
// node process costs about 0.1 s of start-up on a loaded 2-core machine; docs/performance.md).
// Rebuilds the service's bundle when a source file is newer than it (an edited checkout never runs
// stale code) and builds the web pages when they are missing.
import { bundleTime, buildServer, inputTimes, isStale } from './build-server.mjs';
import { buildWebIfMissing } from '../web/build-if-missing.mjs';

if (isStale(bundleTime(), inputTimes())) await buildServer();
await buildWebIfMissing({ always: false });
