// Operator caps on a budget (docs/rewards.md "Caps"): the most one platform account may receive
// from it per UTC day, and the most the users of one partner may take from it per UTC day. They
// are enforced where claims are granted (grantClaims in claims.ts), under row locks.
import type { Kysely } from 'kysely';
import type { DB } from '../db/schema.ts';
import type { Clock } from '../domain/clock.ts';
import { formatAmount } from '../domain/amounts.ts';
import { amountOf, decimalsOf, findBudget } from './service.ts';
import { selectBudgetCaps, upsertBudgetCaps } from './store.ts';

export interface CapsView {
  budgetId: string;
  perAccountPerDay: string | null;
  perPartnerPerDay: string | null;
}

export async function getBudgetCaps(db: Kysely<DB>, budgetId: string): Promise<CapsView> {
  const budget = await findBudget(db, budgetId);
  const decimals = await decimalsOf(db, budget.asset_id);
  const row = await selectBudgetCaps(db, budgetId);
  const view = (v: string | null | undefined) =>
    v === null || v === undefined ? null : formatAmount(v, decimals);
  return {
    budgetId,
    perAccountPerDay: view(row?.per_account_per_day),
    perPartnerPerDay: view(row?.per_partner_per_day),
  };
}

/** Replaces a budget's caps (null: no cap). Applies to grants from now on; what was taken today counts. */
export async function setBudgetCaps(
  db: Kysely<DB>,
  clock: Clock,
  budgetId: string,
  input: { perAccountPerDay: string | null; perPartnerPerDay: string | null },
): Promise<CapsView> {
  const budget = await findBudget(db, budgetId);
  const decimals = await decimalsOf(db, budget.asset_id);
  const perAccount =
    input.perAccountPerDay === null ? null : amountOf(input.perAccountPerDay, decimals, 'perAccountPerDay');
  const perPartner =
    input.perPartnerPerDay === null ? null : amountOf(input.perPartnerPerDay, decimals, 'perPartnerPerDay');
  const values = {
    per_account_per_day: perAccount,
    per_partner_per_day: perPartner,
    updated_at: clock.now(),
  };
  await upsertBudgetCaps(db, budgetId, values);
  return getBudgetCaps(db, budgetId);
}
