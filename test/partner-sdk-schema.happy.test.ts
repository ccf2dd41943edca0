// The SDK's types (packages/partner-sdk/src/schema.ts) are generated from the service's /openapi.json,
// limited to the partner operations; this fails when a server change was not followed by
// `npm run gen:schema -w @mission-rewards/partner-sdk`.
import { readFile } from 'node:fs/promises';
import type { OpenAPI3 } from 'openapi-typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { readOpenApiDocument } from '../web/generate-api-schema.ts';
import {
  PARTNER_SCHEMA_FILE,
  partnerDocument,
  renderPartnerSchema,
} from '../packages/partner-sdk/scripts/generate-schema.ts';

describe('the partner SDK generated types', () => {
  let document: OpenAPI3;
  let generated: string;
  beforeAll(async () => {
    document = await readOpenApiDocument();
    generated = await renderPartnerSchema(document);
  }, 120_000);

  it('src/schema.ts is what the current /openapi.json generates', async () => {
    const committed = await readFile(PARTNER_SCHEMA_FILE, 'utf8');
    expect(
      generated,
      'the partner API changed: run `npm run gen:schema -w @mission-rewards/partner-sdk` and commit src/schema.ts',
    ).toBe(committed);
  });

  it('holds the four partner operations and nothing else', () => {
    expect(Object.keys(partnerDocument(document).paths ?? {}).sort()).toEqual([
      '/v1/achieve',
      '/v1/mission-users',
      '/v1/mission-users/auth',
      '/v1/mission-users/connect',
    ]);
    expect(generated).not.toContain('/admin/');
    expect(generated).not.toContain('/v1/me');
  });

  it('a change to a partner operation changes the text, so the check above can fail', async () => {
    const changed: OpenAPI3 = structuredClone(document);
    const achieve = changed.paths?.['/v1/achieve'] as { post: { summary?: string } };
    achieve.post.summary = 'changed';
    expect(await renderPartnerSchema(changed)).not.toBe(generated);
  }, 60_000);
});
