// Caches of the hot paths: partner credentials (every partner call) and the mission catalog
// (every achieve). Each entry lives one second at most, so a revoked key or a deactivated
// promotion stops working within a second on every process whatever happens; on top of that, every
// successful operator write clears the caches of every process at once (PostgreSQL NOTIFY on
// PostgreSQL; in process on PGlite, which belongs to one process).
import type { Database } from './db/connection.ts';
import type { MissionForAchieve } from './progress/service.ts';
import type { PartnerRow } from './partners/service.ts';
import type { CompletionContext } from './claims/completion.ts';
import { TtlCache } from './cache/ttl-cache.ts';

export const CACHE_CHANNEL = 'mrs_cache_flush';
export const CACHE_TTL_MS = 1000;

export interface HotPathCaches {
  partners: TtlCache<{ partner: PartnerRow; keyHashes: string[] } | undefined>;
  missions: TtlCache<MissionForAchieve | undefined>;
  /** Reward rules, promotion and group facts of a mission, for its completions. */
  completions: TtlCache<CompletionContext>;
  /** Clears this process's caches and tells every other process to clear theirs. */
  flushEverywhere(): Promise<void>;
  stop(): Promise<void>;
}

export async function createHotPathCaches(database: Database, ttlMs = CACHE_TTL_MS): Promise<HotPathCaches> {
  const partners = new TtlCache<{ partner: PartnerRow; keyHashes: string[] } | undefined>(ttlMs);
  const missions = new TtlCache<MissionForAchieve | undefined>(ttlMs);
  const completions = new TtlCache<CompletionContext>(ttlMs);
  const clear = () => {
    partners.clear();
    missions.clear();
    completions.clear();
  };
  const unlisten = await database.listen(CACHE_CHANNEL, clear);
  return {
    partners,
    missions,
    completions,
    async flushEverywhere() {
      clear();
      await database.notify(CACHE_CHANNEL, 'flush');
    },
    stop: unlisten,
  };
}
