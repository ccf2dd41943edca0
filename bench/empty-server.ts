// The HTTP ceiling: an empty Fastify server in its own process answering the same request shapes
// as the service (JSON body parsed, same status and body size), so the difference to the service
// is the service's own work.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/v1/achieve', async (_request, reply) => reply.code(200).send());
app.get('/v1/mission-users', async () => ({ result: true }));
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
process.send?.('ready');
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
