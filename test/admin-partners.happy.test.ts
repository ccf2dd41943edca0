import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp();
});
afterAll(() => ctx.close());

describe('partners and API keys', () => {
  it('creates, lists, gets and changes a partner, canonicalising its allow-list and redirect URLs', async () => {
    const created = await ctx.admin('POST', '/admin/v1/partners', {
      name: 'Acme',
      allowedIps: ['203.0.113.7', '10.0.0.0/8', '10.0.0.0/8', '2001:DB8::/32'],
      redirectUrls: ['https://acme.example/linked'],
    });
    expect(created.statusCode).toBe(201);
    const partner = created.json();
    expect(partner).toMatchObject({
      id: expect.stringMatching(/^ptn_/),
      status: 'ACTIVE',
      allowedIps: ['203.0.113.7/32', '10.0.0.0/8', '2001:db8::/32'],
      redirectUrls: ['https://acme.example/linked'],
    });
    expect((await ctx.admin('GET', `/admin/v1/partners/${partner.id}`)).json()).toEqual(partner);
    const listed = (await ctx.admin('GET', '/admin/v1/partners?limit=10')).json().items;
    expect(listed.map((p: { id: string }) => p.id)).toContain(partner.id);

    const changed = await ctx.admin('PATCH', `/admin/v1/partners/${partner.id}`, {
      allowedIps: [],
      status: 'DISABLED',
    });
    expect(changed.json()).toMatchObject({ allowedIps: [], status: 'DISABLED', name: 'Acme' });
  });

  it('shows an API key once; lists show only its prefix; revoking is idempotent', async () => {
    const partner = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Keys' })).json();
    const issued = await ctx.admin('POST', `/admin/v1/partners/${partner.id}/api-keys`, { name: 'server-1' });
    expect(issued.statusCode).toBe(201);
    const key = issued.json();
    expect(key.apiKey).toMatch(/^mrk_test_[A-Za-z0-9_-]{43}$/);
    expect(key.apiKey.startsWith(key.prefix)).toBe(true);

    const list = await ctx.admin('GET', `/admin/v1/partners/${partner.id}/api-keys`);
    expect(list.body).not.toContain(key.apiKey);
    expect(list.json().items).toEqual([
      expect.objectContaining({ id: key.id, name: 'server-1', revokedAt: null }),
    ]);

    expect(
      (await ctx.admin('DELETE', `/admin/v1/partners/${partner.id}/api-keys/${key.id}`)).statusCode,
    ).toBe(204);
    expect(
      (await ctx.admin('DELETE', `/admin/v1/partners/${partner.id}/api-keys/${key.id}`)).statusCode,
    ).toBe(204);
    const after = (await ctx.admin('GET', `/admin/v1/partners/${partner.id}/api-keys`)).json().items;
    expect(after[0].revokedAt).not.toBeNull();
  });

  it('refuses bad allow-list entries and redirect URLs, and unknown partners and keys', async () => {
    for (const allowedIps of [['localhost'], ['10.0.0.0/33'], ['1.2.3']]) {
      const response = await ctx.admin('POST', '/admin/v1/partners', { name: 'x', allowedIps });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 3000, field: 'allowedIps' });
    }
    for (const url of [
      'ftp://acme.example/x',
      'https://acme.example/x?a=1',
      'https://acme.example/x#f',
      'https://u:p@acme.example/x',
      '/relative',
    ]) {
      const response = await ctx.admin('POST', '/admin/v1/partners', { name: 'x', redirectUrls: [url] });
      expect(response.statusCode, url).toBe(400);
      expect(response.json()).toMatchObject({ code: 3000, field: 'redirectUrls' });
    }
    expect((await ctx.admin('GET', '/admin/v1/partners/ptn_nope')).json()).toMatchObject({ code: 3102 });
    expect((await ctx.admin('PATCH', '/admin/v1/partners/ptn_nope', { name: 'y' })).statusCode).toBe(404);
    expect((await ctx.admin('POST', '/admin/v1/partners/ptn_nope/api-keys', {})).json()).toMatchObject({
      code: 3102,
    });
    const partner = (await ctx.admin('POST', '/admin/v1/partners', { name: 'Keyless' })).json();
    const missing = await ctx.admin('DELETE', `/admin/v1/partners/${partner.id}/api-keys/key_nope`);
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 3103, name: 'NOT_FOUND_API_KEY' });
  });
});
