// The one order in which every transaction takes its locks (keys sorted as text), so that two
// transactions never wait on each other in a cycle.

export function sortedBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  return [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
