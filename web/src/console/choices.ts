// What the console's forms choose from: the fixed options of the API's enums, and the partners and
// budgets that several pages list in their selects.
import { useLoad } from '../shared/ui.tsx';
import { useSession } from './session.tsx';
import type { Budget, Partner } from './types.ts';

export interface Option {
  value: string;
  label: string;
}

export const BUDGET_TYPES: Option[] = [
  { value: 'FIXED', label: 'Fixed rewards' },
  { value: 'LUCKY_DRAW', label: 'Lucky draw' },
];

/** Everything the console lists at once ("all" in a select); more would want a search box. */
export const LIST_LIMIT = 500;

export function usePartnerList() {
  const session = useSession();
  return useLoad(
    (signal) => session.api.get('/admin/v1/partners', { query: { limit: LIST_LIMIT }, signal }),
    [],
  );
}

export function useBudgetList() {
  const session = useSession();
  return useLoad(
    (signal) => session.api.get('/admin/v1/budgets', { query: { limit: LIST_LIMIT }, signal }),
    [],
  );
}

export function partnerOptions(partners: Partner[] | undefined): Option[] {
  return (partners ?? []).map((p) => ({ value: p.id, label: p.name }));
}

/** A budget by name and what it has left (`describe`: in the operator's language), for choosing the one that pays. */
export function budgetOptions(budgets: Budget[], describe: (budget: Budget) => string): Option[] {
  return budgets.map((b) => ({ value: b.id, label: describe(b) }));
}

/** A filter's "any" choice first, then the given options. */
export function withAny(anyLabel: string, options: Option[]): Option[] {
  return [{ value: '', label: anyLabel }, ...options];
}
