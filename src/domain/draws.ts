// Lucky draws with a commit/reveal seed. Before the draw the service publishes
// commitment = SHA-256(seed); after it, the seed. Anyone can then check the commitment and recompute
// the winners from the seed and the draw's ticket ids, so the operator could not have chosen them:
// every ticket's score is SHA-256(seed + ":" + ticketId), and the lowest scores win.
import { createHash } from 'node:crypto';

/** A seed is 32 random bytes written as 64 lowercase hex characters. */
export const SEED_PATTERN = /^[0-9a-f]{64}$/;

function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The published commitment: SHA-256 of the seed's 64 hex characters (as ASCII), in hex. */
export function commitmentOf(seed: string): string {
  if (!SEED_PATTERN.test(seed)) throw new Error('a draw seed is 64 lowercase hex characters');
  return sha256Hex(seed);
}

/** True when `seed` is the one the commitment promised. */
export function seedMatchesCommitment(seed: string, commitment: string): boolean {
  return SEED_PATTERN.test(seed) && sha256Hex(seed) === commitment;
}

/** A ticket's score in a draw: SHA-256(seed + ":" + ticketId), hex. */
export function ticketScore(seed: string, ticketId: string): string {
  return sha256Hex(`${seed}:${ticketId}`);
}

/** Ticket ids in the canonical order: duplicates removed, ascending by UTF-16 code unit (ASCII ids: byte order). */
export function sortTicketIds(ticketIds: readonly string[]): string[] {
  return [...new Set(ticketIds)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The winners of a draw: the `count` tickets with the lowest scores (ties, which SHA-256 makes
 * practically impossible, go to the lower ticket id), best first. Fewer tickets than winners: all win.
 * Depends only on the seed and the set of ticket ids, never on their order.
 */
export function pickWinners(seed: string, ticketIds: readonly string[], count: number): string[] {
  if (!Number.isInteger(count) || count < 0) throw new Error('the number of winners is a whole number >= 0');
  return sortTicketIds(ticketIds)
    .map((id) => ({ id, score: ticketScore(seed, id) }))
    .sort((a, b) => (a.score < b.score ? -1 : a.score > b.score ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, count)
    .map((ticket) => ticket.id);
}
