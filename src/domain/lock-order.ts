// The one order in which every transaction takes its locks (keys sorted as text), so that two
// transactions never wait on each other in a cycle.

export function sortedBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Budget stripes are locked by budget id (as text), then by partner id (as text: the pool's '' comes
 * first), then by stripe number (as a number, as `ORDER BY stripe` reads them): reservations,
 * refills, top-ups and releases all wait in this order (src/budgets/reservations.ts).
 */
export function inStripeOrder<T extends { budgetId: string; owner: string; stripe: number }>(
  items: readonly T[],
): T[] {
  const text = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...items].sort(
    (a, b) => text(a.budgetId, b.budgetId) || text(a.owner, b.owner) || a.stripe - b.stripe,
  );
}
