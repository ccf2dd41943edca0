// The one order in which every transaction takes its locks (keys sorted as text), so that two
// transactions never wait on each other in a cycle.

export function sortedBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/**
 * Budget stripes are locked by budget id (as text), then by stripe number (as a number, as
 * `ORDER BY stripe` reads them): reservations, top-ups and releases all wait in this order.
 */
export function inStripeOrder<T extends { budgetId: string; stripe: number }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) =>
    a.budgetId < b.budgetId ? -1 : a.budgetId > b.budgetId ? 1 : a.stripe - b.stripe,
  );
}
