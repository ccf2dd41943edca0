// Completions whose reward is a FIXED amount from one budget (the usual case, and a flash crowd's):
// the progress records of a whole batch and their claims in one statement, atomic on its own, so
// a batch costs one round trip and no transaction. Completions that pay nothing are the upsert
// alone. Anything else (groups, check-ins, tickets, several budgets, a budget whose free stripes
// are short) goes through the achieve transaction and the CompletionHandler (completion.ts).
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { CompletionReport, CompletionsInOneStatement } from '../progress/service.ts';
import { upsertProgressBatch } from '../progress/service.ts';
import { claimsOfBatch, takenClaims } from '../idempotency/claim-in-statement.ts';
import { homeStripe } from '../domain/stripes.ts';
import type { CompletionContextOf } from './completion.ts';
import { writeFixedCompletions } from './fixed-completions-store.ts';
import { writeFixedCompletionsRouted } from './fixed-completions-routed-store.ts';
import { onCitusCoordinator } from '../db/citus.ts';
import { stripeOwner } from '../budgets/reservations.ts';

/** The rule a completion pays when it is one FIXED amount and nothing else; null: pays nothing; undefined: neither. */
function fixedRewardOnly(c: Awaited<ReturnType<CompletionContextOf>>) {
  // DAILY_CHECK completions extend streaks, group rewards need the group's other records.
  if (c.promotionType !== 'COMPOSITE' || c.groupRule !== undefined) return undefined;
  if (c.missionRule === undefined) return null;
  return c.missionRule.type === 'FIXED' && c.missionRule.amount !== null ? c.missionRule : undefined;
}

/**
 * For createAchiever: writes a batch of completing reports in one statement when every report's
 * mission pays one and the same FIXED reward (or all pay nothing) and all are one partner's. The statement:
 *  - locks a stripe of the partner's that nobody holds with room for the whole batch (as if every
 *    report completed), nearest the first user's home stripe; without one it writes nothing
 *    (answers undefined: the transaction refills the partner's stripes from the budget's pool);
 *  - upserts the records (only if it got the stripe);
 *  - writes a claim and its history for each report whose completion marker was stored (it
 *    completed its period now) and whose user is linked, as grantClaims does, and a deferred
 *    reward (nothing taken) for each such report of a user who has not linked;
 *  - writes nothing when the budget has caps (grantClaims counts them, in the transaction);
 *  - takes from the stripe exactly the amounts of the claims written;
 *  - writes the webhook messages of the completions and claims (src/webhooks/store/outbox.ts);
 *  - claims the reports' idempotency keys as answered (only if it got the stripe), and writes the
 *    records of those whose key it took (src/idempotency/claim-in-statement.ts).
 * The stripe is read and taken under its lock, and CHECK (remaining >= 0) holds whatever happens.
 */
export function completionsInOneStatement(context: CompletionContextOf): CompletionsInOneStatement {
  return async (db: Kysely<DB>, reports: CompletionReport[]) => {
    const rules = await Promise.all(reports.map(async (r) => fixedRewardOnly(await context(db, r))));
    if (rules.some((rule) => rule === undefined)) return undefined;
    if (rules.every((rule) => rule === null)) return upsertProgressBatch(db, reports);
    const rule = rules[0];
    if (!rule || !rules.every((r) => r && r.budget_id === rule.budget_id && r.amount === rule.amount))
      return undefined;
    // The take is from one owner's stripes: on Citus (each partner's own) a batch of several
    // partners' reports goes through the transaction (grantClaims takes from each one's stripes).
    const owner = stripeOwner((reports[0] as CompletionReport).partnerId);
    if (!reports.every((r) => stripeOwner(r.partnerId) === owner)) return undefined;
    const replaceTarget = (reports[0] as CompletionReport).target !== null;
    if (!reports.every((r) => (r.target !== null) === replaceTarget)) return undefined;

    const keyed = reports.some((r) => r.claim !== undefined);
    const { claims, written } = keyed ? claimsOfBatch(reports) : { claims: [], written: reports };
    const amount = BigInt(rule.amount as string);
    const first = reports[0] as CompletionReport;
    const home = homeStripe(`${first.partnerId}:${first.partnerUid}`, rule.stripes);
    const batch = { reports, rule, amount, home, keyed, claims, written, replaceTarget };
    // On Citus the batch goes as routed statements (fixed-completions-routed-store.ts).
    if (onCitusCoordinator()) {
      const stored = await writeFixedCompletionsRouted(db, batch);
      return (
        stored &&
        reports.map((r) => ({
          newlyCompleted: stored.markers.has(r.completionMarker),
          keyTaken: r.claim && stored.taken.has(r.claim),
        }))
      );
    }
    const rows = await writeFixedCompletions(db, batch);
    // No free stripe had room for the batch: nothing was written.
    if (keyed ? !rows.some((r) => r.kind === 'pick') : rows.length === 0) return undefined;
    const winners = new Set(rows.map((r) => r.completed_by));
    const taken = takenClaims(claims, rows);
    return reports.map((r) => ({
      newlyCompleted: winners.has(r.completionMarker),
      keyTaken: r.claim && taken.has(r.claim),
    }));
  };
}
