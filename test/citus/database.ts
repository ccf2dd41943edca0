// Test databases on a Citus cluster: when DATABASE_URL names a Citus coordinator, a test file's
// fresh database must exist on every node with the citus extension, and the coordinator's copy
// must know the workers (Citus keeps its node list per database). A no-op on plain PostgreSQL.
import pg from 'pg';

/** Shards per distributed table in test databases: few, so that a database is made in seconds. */
const TEST_SHARD_COUNT = 4;

export interface CitusNode {
  host: string;
  port: number;
}

/** Runs `run` on a client connected to `url`, closed afterwards. */
export async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

function urlOf(base: string, node: CitusNode | undefined, database: string): string {
  const url = new URL(base);
  if (node) {
    url.hostname = node.host;
    url.port = String(node.port);
  }
  url.pathname = `/${database}`;
  return url.toString();
}

/** The workers of the cluster whose coordinator `adminUrl` names; undefined when it is not Citus. */
export async function citusWorkers(adminUrl: string): Promise<CitusNode[] | undefined> {
  return withClient(adminUrl, async (client) => {
    const citus = await client.query(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`);
    if (citus.rowCount === 0) return undefined;
    const { rows } = await client.query<{ nodename: string; nodeport: number }>(
      `SELECT nodename, nodeport FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' ORDER BY nodeport`,
    );
    return rows.map((row) => ({ host: row.nodename, port: row.nodeport }));
  });
}

/** Whether DATABASE_URL names a Citus coordinator (the Citus tests skip themselves otherwise). */
export async function onCitus(): Promise<boolean> {
  const url = process.env.DATABASE_URL;
  return url !== undefined && url !== '' && (await citusWorkers(url)) !== undefined;
}

/**
 * After `CREATE DATABASE name` on the coordinator: creates it on every worker, installs citus in
 * each copy and registers the coordinator and the workers in the new database. Returns false (and
 * does nothing) when `adminUrl` is not a Citus coordinator.
 */
export async function prepareCitusDatabase(adminUrl: string, name: string): Promise<boolean> {
  const workers = await citusWorkers(adminUrl);
  if (workers === undefined) return false;
  for (const worker of workers) {
    await withClient(urlOf(adminUrl, worker, 'postgres'), (c) => c.query(`CREATE DATABASE ${name}`));
    await withClient(urlOf(adminUrl, worker, name), (c) => c.query('CREATE EXTENSION citus'));
  }
  const coordinator = new URL(adminUrl);
  await withClient(adminUrl, async (c) => {
    await c.query(`ALTER DATABASE ${name} SET citus.shard_count = ${TEST_SHARD_COUNT}`);
    // Some tests inject faults with a trigger of their own on a table (a reference table here).
    await c.query(`ALTER DATABASE ${name} SET citus.enable_unsafe_triggers = on`);
  });
  await withClient(urlOf(adminUrl, undefined, name), async (c) => {
    await c.query('CREATE EXTENSION citus');
    await c.query('SELECT citus_set_coordinator_host($1, $2)', [
      coordinator.hostname,
      Number(coordinator.port),
    ]);
    for (const worker of workers) await c.query('SELECT citus_add_node($1, $2)', [worker.host, worker.port]);
  });
  return true;
}

/** Drops a test database from every worker (the coordinator's copy is dropped by the caller). */
export async function dropCitusDatabase(adminUrl: string, name: string): Promise<void> {
  const workers = await citusWorkers(adminUrl);
  for (const worker of workers ?? [])
    await withClient(urlOf(adminUrl, worker, 'postgres'), (c) =>
      c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`),
    );
}
