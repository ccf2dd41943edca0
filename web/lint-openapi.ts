// `npm run lint:openapi`: builds the service in-process (no server listening, in-memory PGlite), writes
// its OpenAPI document to a temporary file and lints it with Spectral (.spectral.yaml): any error or
// warning fails.
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readOpenApiDocument } from './generate-api-schema.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const dir = await mkdtemp(join(tmpdir(), 'openapi-'));
try {
  const file = join(dir, 'openapi.json');
  await writeFile(file, JSON.stringify(await readOpenApiDocument(), null, 2));
  const spectral = join(ROOT, 'node_modules', '.bin', 'spectral');
  const args = ['lint', file, '--ruleset', join(ROOT, '.spectral.yaml'), '--fail-severity=warn'];
  const run = spawnSync(spectral, args, { stdio: 'inherit', cwd: ROOT });
  process.exitCode = run.status ?? 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
