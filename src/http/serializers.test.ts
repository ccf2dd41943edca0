import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { serializersOnFirstUse } from './serializers.ts';

function appWith(factory?: typeof serializersOnFirstUse) {
  const app = Fastify(
    factory ? { schemaController: { compilersFactory: { buildSerializer: factory } } } : {},
  );
  app.addSchema({ $id: 'Amount', type: 'object', properties: { value: { type: 'string' } } });
  app.get(
    '/amount',
    { schema: { response: { 200: { type: 'object', properties: { amount: { $ref: 'Amount#' } } } } } },
    async () => ({ amount: { value: '1000000000000000000', secret: 'x' }, internal: true }),
  );
  // A schema that cannot be compiled (its reference is to nothing): it shows when compiling happens.
  app.get('/broken', { schema: { response: { 200: { $ref: 'Missing#' } } } }, async () => ({}));
  return app;
}

describe('response serializers compiled on first use', () => {
  it('are not compiled when the app gets ready, where Fastify would compile every route', async () => {
    await expect(appWith().ready()).rejects.toThrow(/Missing/);
    const app = appWith(serializersOnFirstUse);
    await expect(app.ready()).resolves.toBeDefined();
    await app.close();
  });

  it('answer as the serializer compiled at start-up would, shared schemas included', async () => {
    const app = appWith(serializersOnFirstUse);
    for (let i = 0; i < 2; i++) {
      const response = await app.inject({ method: 'GET', url: '/amount' });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe('{"amount":{"value":"1000000000000000000"}}');
    }
    // The broken one fails at its first answer, as Fastify's own error.
    expect((await app.inject({ method: 'GET', url: '/broken' })).statusCode).toBe(500);
    await app.close();
  });
});
