// A free TCP port on loopback, for a service whose own address must be known before it listens
// (its PUBLIC_BASE_URL, a spawned `npm start`, a receiver the test starts later).
import { createServer } from 'node:net';

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
