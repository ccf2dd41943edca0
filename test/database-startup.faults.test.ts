// The start-up wait for the database (issue #28, fault 13): the service started before its database
// listens at once; /healthz answers 200 (an orchestrator must not kill a process waiting as designed),
// /readyz and every other route 503 with the error body and Retry-After. When the database comes, the
// app takes the port over without a moment where a connection is refused, and serves.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createOwnPostgres, ownPostgresUnavailable, postgresBinDir } from './own-postgres.ts';
import type { OwnPostgres } from './own-postgres.ts';
import { freePort } from './free-port.ts';
import { describeUnless, firstReason, needsPostgres } from './requirements.ts';

const bin = postgresBinDir();
const cannotRun = ownPostgresUnavailable();
// Like database.faults.test.ts: it brings its own cluster, so it runs once, in the PostgreSQL pass.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (await check()) return;
    await sleep(50);
  }
  throw new Error(`${what}: not within ${timeoutMs} ms`);
}

describeUnless(firstReason(cannotRun, needsPostgres('it runs on the PostgreSQL pass')))(
  'start-up wait',
  () => {
    let cluster: OwnPostgres;
    let child: ChildProcess | undefined;
    let output = '';

    beforeAll(async () => {
      cluster = await createOwnPostgres(bin as string);
    }, 60_000);
    afterAll(async () => {
      if (child && child.exitCode === null) {
        const exited = new Promise((resolve) => child?.once('exit', resolve));
        child.kill('SIGKILL');
        await exited;
      }
      await cluster?.destroy();
    }, 30_000);

    it('answers while waiting for the database, then serves from the same port with no refused connection', async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: {
          ...process.env,
          DATABASE_URL: cluster.url,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'info',
          DATABASE_STARTUP_WAIT_MS: '120000',
          PAYOUT_WORKER: 'false',
          DEV_CHAIN: 'false',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

      const healthy = () =>
        fetch(`${base}/healthz`).then(
          (r) => r.status === 200,
          () => false,
        );
      await until('/healthz answers while the database is down', healthy, 60_000);
      await until(
        'the process says it waits for the database',
        async () => output.includes('database not reachable yet; retrying'),
        30_000,
      );

      // Liveness: the process is up.
      const health = await fetch(`${base}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      // Readiness: not yet, and why.
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.headers.get('retry-after')).toBe('1');
      expect(await ready.json()).toEqual({
        code: 3098,
        name: 'SERVICE_UNAVAILABLE',
        message: 'not ready: waiting for the database',
      });
      // Every other route: 503 with the error body, whatever the method, path or credentials.
      for (const [method, path] of [
        ['POST', '/v1/achieve'],
        ['GET', '/v1/mission-users?partnerUid=u1'],
        ['GET', '/admin/v1/partners'],
        ['GET', '/no-such-route'],
      ] as const) {
        const response = await fetch(`${base}${path}`, {
          method,
          headers: { 'content-type': 'application/json', 'x-partner-id': 'p', 'x-api-key': 'k' },
          ...(method === 'POST' && { body: '{"partnerUid":"u1","missionKey":"m","completed":true}' }),
        });
        expect(response.status, `${method} ${path}`).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await response.json()).toEqual({
          code: 3098,
          name: 'SERVICE_UNAVAILABLE',
          message: 'the service is starting (waiting for the database); retry the request',
        });
      }

      // Probes keep coming while the database starts and the app takes the port over: none is refused.
      const probes: Array<number | string> = [];
      let probing = true;
      const probe = async () => {
        while (probing) {
          probes.push(
            await fetch(`${base}/healthz`).then(
              (r) => r.status,
              (error: Error & { cause?: { code?: string } }) => error.cause?.code ?? error.message,
            ),
          );
          await sleep(5);
        }
      };
      const probing4 = Promise.all([probe(), probe(), probe(), probe()]);
      await cluster.start();
      await until(
        '/readyz says ready',
        () =>
          fetch(`${base}/readyz`).then(
            (r) => r.status === 200,
            () => false,
          ),
        60_000,
      );
      probing = false;
      await probing4;
      expect(probes.length).toBeGreaterThan(10);
      expect(probes.filter((status) => status !== 200)).toEqual([]);

      // The app serves now: its own answers (a partner route without valid credentials is a 401 of its catalog).
      const partner = await fetch(`${base}/v1/mission-users?partnerUid=u1`, {
        headers: { 'x-partner-id': 'p', 'x-api-key': 'k' },
      });
      expect(partner.status).toBe(401);
      expect(await partner.json()).toMatchObject({ code: expect.any(Number), name: expect.any(String) });
      expect(child.exitCode).toBeNull();
    }, 180_000);
  },
);
