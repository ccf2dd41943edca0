// Lucky draws by commit and reveal. Before the draw the service publishes commitment =
// SHA-256(seed); after it, the seed itself. Winners are the `count` tickets with the smallest
// SHA-256(seed + ":" + ticketId) (ties, which need a hash collision, by ticket id): anyone holding
// the seed and the published ticket ids can recompute them, and nobody could pick the seed to
// favour a ticket after the commitment was published without breaking SHA-256.
// A draw whose budget pays on a chain scores with seed + ":" + the hash of the first block mined
// after its close (drawKeyOf; src/draws/beacon.ts): unknown to anyone until the tickets are closed.
import { createHash, randomBytes } from 'node:crypto';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function newDrawSeed(): string {
  return randomBytes(32).toString('hex');
}

export function commitmentOf(seed: string): string {
  return sha256(seed);
}

/** What the tickets are scored with: the seed, and the beacon block's hash (0x, lowercase) if any. */
export function drawKeyOf(seed: string, blockHash: string | null): string {
  return blockHash ? `${seed}:${blockHash}` : seed;
}

export function drawWinners(seed: string, ticketIds: readonly string[], count: number): string[] {
  return ticketIds
    .map((id) => ({ id, score: sha256(`${seed}:${id}`) }))
    .sort((a, b) => (a.score === b.score ? (a.id < b.id ? -1 : 1) : a.score < b.score ? -1 : 1))
    .slice(0, Math.max(0, count))
    .map((t) => t.id);
}
