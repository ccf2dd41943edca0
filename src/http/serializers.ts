// Fastify's response serializers, compiled when first used (docs/performance.md, "Twenty-first round").
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import type { SerializerFactory } from '@fastify/fast-json-stringify-compiler';

const compileSerializers = SerializerSelector();

/**
 * Fastify's response serializers (fast-json-stringify, with the shared schemas), each compiled at its
 * route's first answer of that status instead of at start-up, where compiling those of every route
 * cost about 0.24 s of CPU before the app could serve (docs/performance.md, "Twenty-first
 * round"). The same serializer answers; only when it is built moves.
 */
export const serializersOnFirstUse: SerializerFactory = (externalSchemas, options) => {
  const compile = compileSerializers(externalSchemas, options);
  return (route) => {
    let serialize: ((doc: unknown) => string) | undefined;
    return (doc) => (serialize ??= compile(route))(doc);
  };
};
