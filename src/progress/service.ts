// Achieve: find the mission, check that the report is valid, upsert the progress record and, when
// this report completes the period, trigger the reward, all in one transaction. Under load the
// server writes concurrent reports in batches (createAchiever).
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import {
  missionGroupGone,
  missionKeyNotFound,
  missionNotReached,
  missionPromotionGone,
  promotionNotActive,
  promotionNotInPeriod,
} from '../error-factories.ts';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { periodKeyFor } from '../domain/periods.ts';
import { Coalescer } from '../db/coalescer.ts';
import type { CoalescerGroup } from '../db/coalescer.ts';
import * as store from './store.ts';
import { traceHooks } from '../telemetry/hooks.ts';
import type { AnsweredClaim } from '../idempotency/claim-in-statement.ts';

export interface AchieveInput {
  partnerUid: string;
  missionKey: string;
  completed: boolean;
  metadata?: { target?: number; current?: number };
}

/** What a completion hands to the reward step. */
export interface CompletionEvent {
  partnerId: string;
  partnerUid: string;
  missionId: string;
  promotionId: string;
  groupId: string;
  periodKey: string;
  completedAt: Date;
  /** The W3C traceparent of the request that reported it; stored with its claim (docs/operations.md "Traces"). */
  traceContext?: string;
}

/**
 * Called inside the achieve transaction with every report of the batch that first completed its
 * period (in record-key order). The rewards capability plugs in here; whatever it writes commits
 * or rolls back with the progress records.
 */
export type CompletionHandler = (trx: Transaction<DB>, events: CompletionEvent[]) => Promise<void>;

export interface AchieveResult {
  periodKey: string;
  newlyCompleted: boolean;
  /** For a report given an idempotency claim: whether it was taken (if not, nothing was written). */
  keyTaken?: boolean;
}

type FindMission = typeof store.findMissionForAchieve;

/** A checked report: the record to write, with the promotion and group of its mission. */
export type CompletionReport = store.ProgressReport & {
  promotionId: string;
  groupId: string;
  /** The W3C traceparent of the reporting request (tracing on), for the claims it creates. */
  traceContext?: string;
};

/**
 * Writes a batch of completing reports together with everything their completions trigger, in
 * one statement (atomic without a transaction), when the rewards allow it; answers per report
 * whether it completed its period, or undefined when it wrote nothing (then the batch goes
 * through the transaction and the CompletionHandler).
 */
export type CompletionsInOneStatement = (
  db: Kysely<DB>,
  reports: CompletionReport[],
) => Promise<Array<{ newlyCompleted: boolean; keyTaken?: boolean | undefined }> | undefined>;

/** Checks a report against its mission and the clock; answers the record to write, or throws. */
async function checkReport(
  db: Kysely<DB>,
  clock: Clock,
  partnerId: string,
  input: AchieveInput,
  findMission: FindMission,
) {
  const mission = await findMission(db, partnerId, input.missionKey);
  if (!mission) throw missionKeyNotFound(input.missionKey);
  if (mission.groupId === null) {
    throw missionGroupGone(input.missionKey);
  }
  if (mission.promotionId === null || mission.timezone === null || mission.startAt === null) {
    throw missionPromotionGone(input.missionKey);
  }
  if (mission.promotionStatus !== 'ACTIVE') {
    throw promotionNotActive(input.missionKey);
  }
  const now = clock.now();
  if (now < mission.startAt || (mission.endAt !== null && now >= mission.endAt)) {
    throw promotionNotInPeriod(input.missionKey, mission.startAt.toISOString(), mission.endAt?.toISOString());
  }
  const current = input.metadata?.current ?? null;
  if (input.completed && mission.target !== null && (current === null || current < mission.target)) {
    throw missionNotReached(input.missionKey, mission.target, current);
  }
  const report: CompletionReport = {
    partnerId,
    partnerUid: input.partnerUid,
    missionId: mission.missionId,
    periodKey: periodKeyAt(mission.recurrence, now, mission.timezone),
    completed: input.completed,
    target: input.metadata?.target ?? null,
    defaultTarget: mission.target,
    current,
    now,
    completionMarker: randomUUID(),
    promotionId: mission.promotionId,
    groupId: mission.groupId,
  };
  const traceContext = traceHooks().traceparent();
  if (traceContext !== undefined) report.traceContext = traceContext;
  return report;
}

/**
 * Writes a batch of checked reports. Progress only: the one upsert statement is the whole write
 * (atomic on its own, no transaction). Completions: in one statement when `inOneStatement` can
 * (the usual case: the reward is a FIXED amount), else in one transaction; either way a 200 means
 * the records and every reward they triggered are committed, and the first completion of each
 * (user, mission, period) is rewarded exactly once.
 */
// The period key of a report, remembered for the current second per recurrence and time zone:
// computing it formats a date in the zone (Intl), profiled at about 4% of a progress report's CPU
// (docs/performance.md). Exact: a period starts at a local midnight, which is a whole second in UTC
// in every zone (tz offsets are whole seconds), so one second never spans two periods.
const periodKeys = new Map<string, { second: number; key: string }>();
function periodKeyAt(recurrence: Parameters<typeof periodKeyFor>[0], now: Date, timezone: string): string {
  const second = Math.floor(now.getTime() / 1000);
  const id = `${recurrence}\u0000${timezone}`;
  const known = periodKeys.get(id);
  if (known !== undefined && known.second === second) return known.key;
  const key = periodKeyFor(recurrence, now, timezone);
  if (periodKeys.size > 1000) periodKeys.clear();
  periodKeys.set(id, { second, key });
  return key;
}

function writeReports(
  db: Kysely<DB>,
  onCompletion: CompletionHandler | undefined,
  inOneStatement?: CompletionsInOneStatement,
) {
  return async (reports: CompletionReport[]): Promise<AchieveResult[]> => {
    const answer = (results: Array<{ newlyCompleted: boolean; keyTaken?: boolean | undefined }>) =>
      reports.map((r, i) => ({
        periodKey: r.periodKey,
        newlyCompleted: results[i]?.newlyCompleted ?? false,
        keyTaken: results[i]?.keyTaken,
      }));
    if (!reports.some((r) => r.completed)) return answer(await store.upsertProgressBatch(db, reports));
    if (inOneStatement && reports.every((r) => r.completed)) {
      const results = await inOneStatement(db, reports);
      if (results) return answer(results);
    }
    return db.transaction().execute(async (trx) => {
      const results = await store.upsertProgressBatch(trx, reports);
      const events: CompletionEvent[] = reports
        .filter((_, i) => results[i]?.newlyCompleted)
        .sort((a, b) => (store.progressKey(a) < store.progressKey(b) ? -1 : 1))
        .map((r) => ({
          partnerId: r.partnerId,
          partnerUid: r.partnerUid,
          missionId: r.missionId,
          promotionId: r.promotionId,
          groupId: r.groupId,
          periodKey: r.periodKey,
          completedAt: r.now,
          traceContext: r.traceContext,
        }));
      if (events.length > 0 && onCompletion) await onCompletion(trx, events);
      return answer(results);
    });
  };
}

/** One report, written on its own (no batching). */
export async function achieve(
  db: Kysely<DB>,
  clock: Clock,
  partnerId: string,
  input: AchieveInput,
  onCompletion?: CompletionHandler,
  /** Where the mission comes from (the hot-path cache in the server). */
  findMission: FindMission = store.findMissionForAchieve,
): Promise<AchieveResult> {
  const report = await checkReport(db, clock, partnerId, input, findMission);
  const [result] = await writeReports(db, onCompletion)([report]);
  return result as AchieveResult;
}

/** Achieve as the server runs it (createAchiever). */
export type Achiever = ReturnType<typeof createAchiever>;

// The catalog lookup of achieve (cached by the composition root) and the progress upsert that the
// FIXED-reward fast path (claims/fixed-completions.ts) writes in its one statement, or on Citus as
// its own routed statement (progressValuesUpsert).
export {
  findMissionForAchieve,
  progressUpsertQuery,
  progressValuesUpsert,
  takenKeyCondition,
  upsertProgressBatch,
} from './store.ts';
export type { MissionForAchieve } from './store.ts';

export interface AchieveBatching {
  /** Batches written at once per kind of report (progress only; with a completion). */
  concurrency?: number;
  /** Most reports in one batch. */
  maxBatch?: number;
  /** The server's batching queues: their bounds and readiness reading (src/http/load-shedding.ts). */
  group?: CoalescerGroup;
}

/**
 * Achieve for the server: reports that arrive while earlier writes are in flight are written
 * together (one upsert statement for a batch of progress reports, one transaction for a batch of
 * completions), each answered once its batch has committed. Reports of one kind and shape share a
 * batch (see upsertProgressBatch); two reports of one record never do.
 */
export function createAchiever(
  db: Kysely<DB>,
  clock: Clock,
  options: {
    onCompletion?: CompletionHandler;
    inOneStatement?: CompletionsInOneStatement;
    findMission?: FindMission;
    /** After each committed batch: how many of a partner's reports completed their period (the completion-rate alarm counts them). */
    onCompleted?: (partnerId: string, completions: number) => void;
  } & AchieveBatching = {},
) {
  const findMission = options.findMission ?? store.findMissionForAchieve;
  const writeBatch = writeReports(db, options.onCompletion, options.inOneStatement);
  const onCompleted = options.onCompleted;
  const write = !onCompleted
    ? writeBatch
    : async (reports: CompletionReport[]) => {
        const results = await writeBatch(reports);
        const perPartner = new Map<string, number>();
        results.forEach((r, i) => {
          const partnerId = (reports[i] as CompletionReport).partnerId;
          if (r.newlyCompleted) perPartner.set(partnerId, (perPartner.get(partnerId) ?? 0) + 1);
        });
        for (const [partnerId, n] of perPartner) onCompleted(partnerId, n);
        return results;
      };
  const coalescers = new Map<string, Coalescer<CompletionReport, AchieveResult>>();
  const coalescerFor = (report: CompletionReport) => {
    const kind = `${report.completed}:${report.target !== null}`;
    let coalescer = coalescers.get(kind);
    if (coalescer === undefined) {
      coalescer = new Coalescer<CompletionReport, AchieveResult>({
        run: write,
        keyOf: store.progressKey,
        concurrency: options.concurrency,
        maxBatch: options.maxBatch,
        group: options.group,
        name: report.completed ? 'achieve completion' : 'achieve progress',
      });
      coalescers.set(kind, coalescer);
    }
    return coalescer;
  };
  return {
    /**
     * With `claim`, the request's idempotency key is claimed and answered in the statement (or
     * transaction) that writes the report; the result says whether it was taken, and when it was
     * not, nothing of this report was written.
     */
    async achieve(partnerId: string, input: AchieveInput, claim?: AnsweredClaim): Promise<AchieveResult> {
      const report = await checkReport(db, clock, partnerId, input, findMission);
      if (claim !== undefined) report.claim = claim;
      return coalescerFor(report).submit(report);
    },
  };
}

export async function userProgress(db: Kysely<DB>, partnerId: string, partnerUid: string) {
  const rows = await store.listUserProgress(db, partnerId, partnerUid);
  return rows.map((row) => ({
    ...row,
    completedAt: row.completedAt?.toISOString() ?? null,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  }));
}
