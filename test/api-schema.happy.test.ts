// The pages' API types (web/src/shared/api-schema.ts) are generated from the service's /openapi.json;
// this fails when a server change was not followed by `npm run gen:api`.
import { readFile } from 'node:fs/promises';
import type { OpenAPI3 } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_SCHEMA_FILE, readOpenApiDocument, renderApiSchema } from '../web/generate-api-schema.ts';

describe('generated API types', () => {
  let document: OpenAPI3;
  let generated: string;
  beforeAll(async () => {
    document = await readOpenApiDocument();
    generated = await renderApiSchema(document);
  }, 120_000);

  it('web/src/shared/api-schema.ts is what the current /openapi.json generates', async () => {
    const committed = await readFile(API_SCHEMA_FILE, 'utf8');
    expect(generated, 'the API changed: run `npm run gen:api` and commit web/src/shared/api-schema.ts').toBe(
      committed,
    );
  });

  it('a server change (one route fewer) changes the generated text, so the check above can fail', async () => {
    const changed: OpenAPI3 = structuredClone(document);
    expect(changed.paths?.['/admin/v1/partners']).toBeDefined();
    delete changed.paths?.['/admin/v1/partners'];
    expect(await renderApiSchema(changed)).not.toBe(generated);
  }, 60_000);
});
