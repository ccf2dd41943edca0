// The bench's PostgreSQL wait sampler (bench/pg-waits.ts, BENCH_PG_WAITS=1): how a backend's state
// is read, and on real PostgreSQL, the sampler's own process reading backends that wait for a lock,
// sit in a transaction waiting on their client, and compute.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { describePgWaits, kindOf, startPgWaits } from '../bench/pg-waits.ts';
import { createTestDatabase } from './harness.ts';
import { describeUnless, needsPostgres } from './requirements.ts';

describe('kindOf: what a backend waits for, as one of a few kinds', () => {
  it('reads no wait event as CPU, and the three WAL flush events as the flush', () => {
    expect(kindOf('active', null, null)).toBe('CPU');
    expect(kindOf('active', 'IO', 'WALSync')).toBe('WAL flush');
    expect(kindOf('active', 'IO', 'WALWrite')).toBe('WAL flush');
    expect(kindOf('active', 'LWLock', 'WALWrite')).toBe('WAL flush');
  });

  it('tells locks, the client, data files and the rest apart', () => {
    expect(kindOf('active', 'Lock', 'transactionid')).toBe('locks');
    expect(kindOf('idle in transaction', 'Client', 'ClientRead')).toBe('the service');
    expect(kindOf('active', 'IO', 'DataFileRead')).toBe('data files');
    expect(kindOf('active', 'LWLock', 'BufferContent')).toBe('other');
  });
});

describe('describePgWaits', () => {
  it('gives each kind its share, the backends busy on average and the busiest statements first', () => {
    const line = describePgWaits({
      looks: 100,
      byKind: { CPU: 30, 'WAL flush': 90 },
      byStatement: {
        small: { CPU: 10 },
        big: { CPU: 20, 'WAL flush': 90 },
      },
    });
    expect(line).toBe(
      '100 looks, 1.2 backends busy on average: WAL flush 75%, CPU 25%; by statement: big 92% (WAL flush 82%, CPU 18%); small 8% (CPU 100%)',
    );
  });
});

describeUnless(needsPostgres())('the sampler on real PostgreSQL', () => {
  let drop: () => Promise<void>;
  let url: string;
  const clients: pg.Client[] = [];
  const client = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    const made = await createTestDatabase();
    drop = made.drop;
    url = made.url as string;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
    await drop();
  });

  it('counts a backend waiting for a row lock and one idle in its transaction, by statement', async () => {
    const setup = await client();
    await setup.query(
      'CREATE TABLE waits_probe (id int PRIMARY KEY, n int); INSERT INTO waits_probe VALUES (1, 0)',
    );
    const holder = await client();
    await holder.query('BEGIN');
    await holder.query('UPDATE waits_probe SET n = n + 1 WHERE id = 1');
    const waiter = await client();
    const sampler = await startPgWaits(url);
    const blocked = waiter.query('/* prepared:probe_update */ UPDATE waits_probe SET n = n + 1 WHERE id = 1');
    await new Promise((r) => setTimeout(r, 600));
    const waits = await sampler.stop();
    await holder.query('COMMIT');
    await blocked;
    expect(waits.looks).toBeGreaterThan(10);
    // The waiter is on the row's lock the whole time, the holder idle in its transaction.
    expect(waits.byStatement.probe_update?.locks).toBeGreaterThan(waits.looks / 2);
    expect(waits.byKind['the service']).toBeGreaterThan(waits.looks / 2);
    expect(waits.byKind.CPU ?? 0).toBeLessThan(waits.looks / 4);
  });
});
