import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DB } from '../db/schema.ts';
import { sha256Hex } from '../domain/ids.ts';
import { authenticatePartner } from './service.ts';
import type { PartnerRow } from './store.ts';

const db = undefined as unknown as Kysely<DB>;
const KEY_A = 'mrk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
const KEY_B = 'mrk_test_bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
const row = (status: 'ACTIVE' | 'DISABLED' = 'ACTIVE'): PartnerRow => ({
  id: 'ptn_1',
  name: 'Partner',
  status,
  allowed_ips: [],
  redirect_urls: [],
  created_at: new Date(0),
  updated_at: new Date(0),
});
const credentials = (keys: string[], status?: 'ACTIVE' | 'DISABLED') => ({
  partner: row(status),
  keyHashes: keys.map(sha256Hex),
});

describe('partner authentication by key hash', () => {
  it('accepts each live key of the partner, as often as it is presented', async () => {
    const live = credentials([KEY_A, KEY_B]);
    const find = async () => live;
    for (const key of [KEY_A, KEY_B, KEY_A, KEY_B])
      expect((await authenticatePartner(db, 'ptn_1', key, find)).outcome).toBe('OK');
  });

  it('refuses a key that is not live, one character off, or empty', async () => {
    const live = credentials([KEY_A]);
    const find = async () => live;
    for (const key of [KEY_B, `${KEY_A.slice(0, -1)}b`, `${KEY_A}a`, ''])
      expect((await authenticatePartner(db, 'ptn_1', key, find)).outcome).toBe('UNAUTHORIZED');
  });

  it('refuses a key at once when the credentials come without it (revoked), after accepting it before', async () => {
    let current = credentials([KEY_A, KEY_B]);
    const find = async () => current;
    expect((await authenticatePartner(db, 'ptn_1', KEY_B, find)).outcome).toBe('OK');
    current = credentials([KEY_A]);
    expect((await authenticatePartner(db, 'ptn_1', KEY_B, find)).outcome).toBe('UNAUTHORIZED');
    expect((await authenticatePartner(db, 'ptn_1', KEY_A, find)).outcome).toBe('OK');
  });

  it('refuses every key of a partner without live keys, and an unknown partner', async () => {
    const none = credentials([]);
    expect((await authenticatePartner(db, 'ptn_1', KEY_A, async () => none)).outcome).toBe('UNAUTHORIZED');
    expect((await authenticatePartner(db, 'ptn_x', KEY_A, async () => undefined)).outcome).toBe(
      'UNAUTHORIZED',
    );
  });

  it('answers DISABLED only to the right key of a disabled partner', async () => {
    const disabled = credentials([KEY_A], 'DISABLED');
    const find = async () => disabled;
    expect((await authenticatePartner(db, 'ptn_1', KEY_A, find)).outcome).toBe('DISABLED');
    expect((await authenticatePartner(db, 'ptn_1', KEY_B, find)).outcome).toBe('UNAUTHORIZED');
  });

  it('looks a key the cached credentials lack up once more before refusing it, and only then', async () => {
    const stale = credentials([KEY_A]);
    const fresh = credentials([KEY_A, KEY_B]);
    let reloads = 0;
    const reload = async () => {
      reloads += 1;
      return fresh;
    };
    // KEY_B was created a moment ago through another process: the cache does not hold it yet.
    expect(
      (await authenticatePartner(db, 'ptn_1', KEY_B, async () => stale, undefined, reload)).outcome,
    ).toBe('OK');
    expect(reloads).toBe(1);
    // A key the cache holds costs no second lookup.
    expect(
      (await authenticatePartner(db, 'ptn_1', KEY_A, async () => stale, undefined, reload)).outcome,
    ).toBe('OK');
    expect(reloads).toBe(1);
    // A key neither holds is refused after the one lookup; so is a partner that is not there at all.
    const wrong = `${KEY_A.slice(0, -1)}c`;
    expect(
      (await authenticatePartner(db, 'ptn_1', wrong, async () => stale, undefined, reload)).outcome,
    ).toBe('UNAUTHORIZED');
    expect(
      (
        await authenticatePartner(
          db,
          'ptn_x',
          KEY_A,
          async () => undefined,
          undefined,
          async () => undefined,
        )
      ).outcome,
    ).toBe('UNAUTHORIZED');
  });

  it('reads a stored hash in upper-case hex as the bytes it names, like the lower-case one', async () => {
    const upper = { partner: row(), keyHashes: [sha256Hex(KEY_A).toUpperCase()] };
    expect((await authenticatePartner(db, 'ptn_1', KEY_A, async () => upper)).outcome).toBe('OK');
    expect((await authenticatePartner(db, 'ptn_1', KEY_B, async () => upper)).outcome).toBe('UNAUTHORIZED');
  });
});
