import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from './api.ts';
import { createApiClient, fillPath } from './api-client.ts';

function answer(status: number, body: unknown): Response {
  return new Response(body === undefined ? '' : JSON.stringify(body), { status });
}

afterEach(() => vi.unstubAllGlobals());

describe('typed API client', () => {
  it('fills path parameters, each encoded as one segment', () => {
    expect(
      fillPath('/admin/v1/partners/{partnerId}/api-keys/{keyId}', { partnerId: 'p 1/x', keyId: 'k?' }),
    ).toBe('/admin/v1/partners/p%201%2Fx/api-keys/k%3F');
    expect(() => fillPath('/admin/v1/budgets/{id}', {})).toThrow('{id}');
  });

  it('sends the method, query (empty values left out), JSON body and bearer secret', async () => {
    const fetch = vi.fn(async () => answer(200, { id: 'p1' }));
    vi.stubGlobal('fetch', fetch);
    const api = createApiClient({ bearer: 'secret-1' });
    await api.get('/admin/v1/claims', { query: { partnerId: '', budgetId: 'b 1', limit: 20 } });
    await api.patch('/admin/v1/partners/{partnerId}', { path: { partnerId: 'p1' }, body: { name: 'Acme' } });
    const [getUrl, getInit] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(getUrl).toBe('/admin/v1/claims?budgetId=b+1&limit=20');
    expect(getInit.method).toBe('GET');
    expect(getInit.body).toBeUndefined();
    expect((getInit.headers as Record<string, string>).authorization).toBe('Bearer secret-1');
    const [patchUrl, patchInit] = fetch.mock.calls[1] as unknown as [string, RequestInit];
    expect(patchUrl).toBe('/admin/v1/partners/p1');
    expect(patchInit.method).toBe('PATCH');
    expect(patchInit.body).toBe('{"name":"Acme"}');
  });

  it('keeps ApiError for an error answer and lets onError see it first', async () => {
    vi.stubGlobal('fetch', async () =>
      answer(401, { code: 3200, name: 'ADMIN_UNAUTHORIZED', message: 'revoked' }),
    );
    const seen: unknown[] = [];
    const api = createApiClient({ bearer: 'old', onError: (error) => seen.push(error) });
    const failure = await api.get('/admin/v1/me').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApiError);
    expect(failure).toMatchObject({ status: 401, code: 3200, errorName: 'ADMIN_UNAUTHORIZED' });
    expect(seen).toEqual([failure]);
  });

  it('answers undefined for an empty 204', async () => {
    vi.stubGlobal('fetch', async () => new Response(null, { status: 204 }));
    const api = createApiClient();
    expect(await api.delete('/admin/v1/missions/{id}/reward', { path: { id: 'm1' } })).toBeUndefined();
  });
});
