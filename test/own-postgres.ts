// A PostgreSQL cluster of a test's own (Debian's binaries, data under /tmp, a port of its own) that the
// test may stop, restart and kill: fault tests must never touch the shared server on 5432.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, chownSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/**
 * Why this machine cannot run a cluster of the test's own, or undefined when it can: the server
 * binaries are missing, or the process is root (initdb refuses root) and there is no postgres user.
 */
export function ownPostgresUnavailable(): string | undefined {
  if (postgresBinDir() === undefined) return 'no PostgreSQL server binaries under /usr/lib/postgresql';
  if (userInfo().uid !== 0) return undefined;
  try {
    execFileSync('id', ['-u', 'postgres'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return 'running as root and there is no postgres user to run initdb as';
  }
}

/** The newest /usr/lib/postgresql/<version>/bin holding initdb, pg_ctl and postgres, or undefined. */
export function postgresBinDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bin = path.join(root, version, 'bin');
    if (['initdb', 'pg_ctl', 'postgres'].every((tool) => existsSync(path.join(bin, tool)))) return bin;
  }
  return undefined;
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function freePortFrom(first: number): Promise<number> {
  // A random start, so that test files (or helpers) running at once rarely try the same port.
  const offset = Math.floor(Math.random() * 400);
  for (let i = 0; i < 400; i++) {
    const port = first + ((offset + i) % 400);
    if (await portIsFree(port)) return port;
  }
  throw new Error('no free port for a test PostgreSQL cluster');
}

export interface OwnPostgres {
  /** Connection string of its `postgres` database (trust auth, user postgres). */
  url: string;
  port: number;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** `pg_ctl restart -m fast`: sessions are ended, the server is back when this returns. */
  restart(): Promise<void>;
  /** SIGKILL to the postmaster (a crash); start() brings it back after crash recovery. */
  killPostmaster(): Promise<void>;
  /** pg_terminate_backend on every other client backend; answers how many were ended. */
  terminateBackends(): Promise<number>;
  destroy(): Promise<void>;
}

/** initdb as the postgres user (initdb refuses root), a free port from 54329 up; not started. */
export async function createOwnPostgres(bin: string): Promise<OwnPostgres> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mrs-own-pg-'));
  const asRoot = userInfo().uid === 0;
  const pgUser = asRoot
    ? await run('id', ['-u', 'postgres']).then((r) => Number(r.stdout.trim()))
    : undefined;
  const pgGroup = asRoot
    ? await run('id', ['-g', 'postgres']).then((r) => Number(r.stdout.trim()))
    : undefined;
  if (pgUser !== undefined && pgGroup !== undefined) chownSync(dataDir, pgUser, pgGroup);
  const tool = (name: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', path.join(bin, name), ...args])
      : run(path.join(bin, name), args);

  await tool('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePortFrom(54329);
  // Small and quick: no fsync (nothing here must survive the machine), the socket in the data dir.
  const options = `-p ${port} -k ${dataDir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=60 -c shared_buffers=32MB`;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const pgCtl = (...args: string[]) =>
    tool('pg_ctl', ['-D', dataDir, '-l', path.join(dataDir, 'server.log'), ...args]);

  const start = async () => {
    // After a SIGKILL the old backends hold shared memory until they notice; retry for a while.
    let lastError: unknown;
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        await pgCtl('-o', options, '-w', '-t', '30', 'start');
        return;
      } catch (error) {
        lastError = error;
        await new Promise((r) => setTimeout(r, 250));
      }
    }
    throw lastError;
  };

  return {
    url,
    port,
    start,
    stop: async () => {
      await pgCtl('-m', 'fast', '-w', 'stop');
    },
    restart: async () => {
      await pgCtl('-o', options, '-m', 'fast', '-w', '-t', '30', 'restart');
    },
    killPostmaster: async () => {
      const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
      // Until the port is closed: the crash is complete.
      for (let i = 0; i < 100 && !(await portIsFree(port)); i++) await new Promise((r) => setTimeout(r, 50));
    },
    terminateBackends: async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const result = await client.query<{ n: number }>(
          `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
           WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'`,
        );
        return result.rows[0]?.n ?? 0;
      } finally {
        await client.end();
      }
    },
    destroy: async () => {
      await pgCtl('-m', 'immediate', '-w', 'stop').catch(() => {});
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
