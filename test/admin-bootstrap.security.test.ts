// Operator credentials (findings 4 and 12): a revoked ADMIN_TOKEN stays revoked across restarts;
// start-up only creates the bootstrap OWNER when none has that secret and says so in a JSON log
// line without the secret; generated secrets are typed and high-entropy; no part of a
// human-chosen secret is stored or shown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { ensureOwnerToken } from '../src/admins/service.ts';
import { openPGlite } from '../src/db/connection.ts';
import { listMigrations, migrate } from '../src/db/migrate.ts';
import { sha256Hex } from '../src/domain/ids.ts';
import { buildApp } from '../src/app.ts';
import { ADMIN_TOKEN, startTestApp } from './harness.ts';
import type { TestContext } from './harness.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await startTestApp({ captureLogs: true });
});
afterAll(() => ctx.close());

const credentials = () =>
  ctx.database.db.selectFrom('admin_credentials').selectAll().orderBy('created_at').execute();

describe('generated admin secrets', () => {
  it('are adm_ + 256 random bits, kept only as SHA-256 with a 10-character prefix', async () => {
    const created = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'ops', role: 'OPERATOR' })
    ).json<{
      id: string;
      secret: string;
      prefix: string;
    }>();
    expect(created.secret).toMatch(/^adm_[A-Za-z0-9_-]{43}$/);
    expect(created.prefix).toBe(created.secret.slice(0, 10));
    const row = (await credentials()).find((r) => r.id === created.id);
    expect(row?.secret_hash).toBe(sha256Hex(created.secret));
    expect(JSON.stringify(row)).not.toContain(created.secret);
  });
});

describe('the ADMIN_TOKEN bootstrap', () => {
  it('creates the OWNER once, then changes nothing; it never shows or keeps a prefix of the secret', async () => {
    const fresh = 'another-human-chosen-owner-secret';
    const first = await ensureOwnerToken(ctx.database.db, fresh, ctx.app.log);
    expect(first.outcome).toBe('CREATED');
    expect(await ensureOwnerToken(ctx.database.db, fresh, ctx.app.log)).toEqual({
      outcome: 'EXISTS',
      credentialId: first.credentialId,
      role: 'OWNER',
    });
    expect((await credentials()).filter((row) => row.secret_hash === sha256Hex(fresh))).toHaveLength(1);

    const listed = await ctx.admin('GET', '/admin/v1/admin-credentials');
    const bootstrap = listed
      .json<{ items: Array<{ id: string; prefix: string }> }>()
      .items.find((c) => c.id === first.credentialId);
    expect(bootstrap?.prefix).toBe('');
    expect((await ctx.admin('GET', '/admin/v1/me', undefined, fresh)).json().prefix).toBe('');
    for (const row of await credentials()) {
      if (row.name === 'ADMIN_TOKEN') expect(row.secret_prefix).toBe('');
    }
  });

  it('a revoked ADMIN_TOKEN stays revoked after a restart, and the start-up log says so', async () => {
    // Another OWNER first: the last one cannot be revoked.
    const owner = (
      await ctx.admin('POST', '/admin/v1/admin-credentials', { name: 'second owner', role: 'OWNER' })
    ).json<{ secret: string }>();
    const bootstrapId = (await credentials()).find((row) => row.secret_hash === sha256Hex(ADMIN_TOKEN))?.id;
    expect(
      (await ctx.admin('DELETE', `/admin/v1/admin-credentials/${bootstrapId}`, undefined, owner.secret))
        .statusCode,
    ).toBe(204);
    const before = (await credentials()).length;

    // What start-up does: a new app on the same database, and the bootstrap with the same secret.
    const restarted = await buildApp({
      config: ctx.config,
      database: ctx.database,
      clock: ctx.clock,
      logger: false,
    });
    try {
      await restarted.ready();
      const outcome = await ensureOwnerToken(ctx.database.db, ADMIN_TOKEN, ctx.app.log);
      const refused = await restarted.inject({
        method: 'GET',
        url: '/admin/v1/partners',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toMatchObject({ code: 3200, name: 'ADMIN_UNAUTHORIZED' });
      expect(outcome).toEqual({ outcome: 'REVOKED', credentialId: bootstrapId });
    } finally {
      await restarted.close();
    }
    expect((await credentials()).length).toBe(before);
    const row = (await credentials()).find((r) => r.id === bootstrapId);
    expect(row?.revoked_at).not.toBeNull();

    const lines = ctx.logs.filter(
      (line) => typeof line.msg === 'string' && line.msg.startsWith('ADMIN_TOKEN'),
    );
    expect(lines.map((line) => line.level)).toEqual([30, 30, 40]);
    expect(lines.at(-1)).toMatchObject({ adminToken: { outcome: 'REVOKED', credentialId: bootstrapId } });
    expect(lines.at(-1)?.msg).toMatch(/stays revoked/);
    const logged = JSON.stringify(ctx.logs);
    expect(logged).not.toContain(ADMIN_TOKEN);
    expect(logged).not.toContain('another-human-chosen-owner-secret');
  });
});

describe('migration 0006', () => {
  it('forgets the stored prefix of a human-chosen secret and keeps those of generated ones', async () => {
    // The SQL is the same on both engines; an embedded database lets the test stop before 0006.
    const database = await openPGlite(undefined);
    try {
      await database.execScript(
        `CREATE TABLE schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
      );
      for (const migration of listMigrations().filter((m) => m.version < '0006')) {
        await sql.raw(migration.sql).execute(database.db);
        await database.db.insertInto('schema_migrations').values({ version: migration.version }).execute();
      }
      await database.db
        .insertInto('admin_credentials')
        .values([
          {
            id: 'adc_old',
            name: 'ADMIN_TOKEN',
            role: 'OWNER',
            secret_hash: sha256Hex('human-chosen'),
            secret_prefix: 'huma',
          },
          {
            id: 'adc_gen',
            name: 'ops',
            role: 'OPERATOR',
            secret_hash: sha256Hex('adm_x'),
            secret_prefix: 'adm_AbC123',
          },
        ])
        .execute();
      await migrate(database);
      const rows = await database.db
        .selectFrom('admin_credentials')
        .select(['id', 'secret_prefix'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { id: 'adc_gen', secret_prefix: 'adm_AbC123' },
        { id: 'adc_old', secret_prefix: '' },
      ]);
    } finally {
      await database.close();
    }
  }, 120_000); // an in-process PGlite and two migration runs: slow on a loaded machine
});
