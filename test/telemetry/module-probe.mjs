// `--import` for a spawned service: records every module URL the process resolves (ESM loader hooks)
// into MODULE_PROBE_FILE, so a test can tell which packages a process loaded.
import { register } from 'node:module';
import process from 'node:process';

register('./module-probe-hooks.mjs', import.meta.url, { data: { file: process.env.MODULE_PROBE_FILE } });
