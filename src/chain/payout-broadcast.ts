// Step 2 of the chain payout, BROADCAST: every payout due (SIGNED and never accepted, or BROADCAST
// a while ago without a receipt) is sent to its network's node; accepted ones become BROADCAST.
// Each network on its own: one that does not answer waits (its payouts keep their lease time and
// fall due again), the others are sent.
import type { Hex, PublicClient } from 'viem';
import { BaseError } from 'viem';
import { groupBy } from '../domain/group-by.ts';
import type { PayoutContext } from './payout-context.ts';
import { NetworkUnreachable } from './payout-context.ts';
import { isRpcAnswer, rpcFailure } from './rpc.ts';
import { leaseDueBroadcasts, recordBroadcasts } from './payout-store.ts';
import type { OpenPayoutRow } from './payout-store.ts';

/** Node answers to a broadcast that mean "this transaction (or its nonce) is already in": harmless. */
const ALREADY_IN =
  /already known|known transaction|already imported|nonce too low|nonce has already been used|replacement transaction underpriced/i;

/** A refusal because an earlier nonce is still missing: worth sending again in order. */
const NONCE_AHEAD = /nonce too high|can't be queued/i;

function answerOf(error: unknown): string {
  if (error instanceof BaseError) return error.details || error.shortMessage;
  return error instanceof Error ? error.message : String(error);
}

/** Sends every payout due; answers how many a node accepted. */
export async function broadcastDue(ctx: PayoutContext): Promise<number> {
  const { db, clock, options } = ctx;
  const rebroadcastAfterMs = options.rebroadcastAfterMs ?? 15_000;
  const batchSize = options.batchSize ?? 1000;
  let sent = 0;
  for (;;) {
    const now = clock.now();
    const due = await leaseDueBroadcasts(db, now, new Date(now.getTime() - rebroadcastAfterMs), batchSize);
    if (due.length === 0) break;
    const accepted: string[] = [];
    const refused: Array<{ id: string; error: string }> = [];
    for (const [networkId, payouts] of groupBy(due, (p) => p.network_id)) {
      const network = await ctx.networkOf(networkId);
      const answers = await ctx.onNetwork(network, (client) => sendAll(client, payouts));
      for (const payout of payouts) {
        const error = answers?.get(payout.id) ?? (answers ? null : `${network.name} unreachable`);
        if (error === null || ALREADY_IN.test(error)) accepted.push(payout.id);
        else refused.push({ id: payout.id, error });
      }
    }
    await recordBroadcasts(db, accepted, refused, now);
    sent += accepted.length;
    if (due.length < batchSize) break;
  }
  await options.holdAt?.('broadcast');
  return sent;
}

/**
 * All at once (one JSON-RPC batch: a node queues nonces ahead of the next one), then, for a node
 * that refuses to queue (the dev chain's automine mines each transaction as it comes), the refused
 * ones again one after another in nonce order, wallets in parallel. Answers each payout's refusal
 * (null: accepted); throws NetworkUnreachable when the node answered none of them.
 */
async function sendAll(client: PublicClient, due: OpenPayoutRow[]): Promise<Map<string, string | null>> {
  let reached = false;
  let failure: unknown;
  const send = (payout: OpenPayoutRow) =>
    client.request({ method: 'eth_sendRawTransaction', params: [payout.raw_tx as Hex] }).then(
      () => ((reached = true), null),
      (error: unknown) => {
        if (isRpcAnswer(error)) {
          reached = true;
          return answerOf(error);
        }
        failure = error;
        return `no answer (${rpcFailure(error)})`;
      },
    );
  const answers = new Map<string, string | null>();
  const results = await Promise.all(due.map(send));
  due.forEach((payout, i) => answers.set(payout.id, results[i] ?? null));
  const byWallet = groupBy(
    due.filter((payout) => NONCE_AHEAD.test(answers.get(payout.id) ?? '')),
    (payout) => payout.wallet_id,
  );
  await Promise.all(
    [...byWallet.values()].map(async (payouts) => {
      for (const payout of payouts) answers.set(payout.id, await send(payout));
    }),
  );
  if (!reached) throw new NetworkUnreachable(failure);
  return answers;
}
