// GET /v1/me/claims: my reward claims, with the chain transfer of those paid on a chain.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listClaims } from '../../claims/service.ts';
import { withChainTransactions } from '../../chain/claim-transactions.ts';
import { ClaimStatus, MyClaim, tags } from './schemas.ts';

export const myClaimsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/claims',
    {
      schema: {
        tags,
        summary: 'My reward claims',
        querystring: Type.Object({ status: Type.Optional(ClaimStatus) }, { additionalProperties: false }),
        response: { 200: Type.Object({ items: Type.Array(MyClaim) }), ...errorResponses() },
      },
    },
    async (request) => {
      const filter = { accountId: request.account.id, status: request.query.status };
      const items = await withChainTransactions(db, await listClaims(db, filter, 500, 0));
      return {
        items: items.map(({ completedBeforeLink, ...claim }) => ({
          id: claim.id,
          status: claim.status,
          // Only a refusal's reason is the user's business (a payout error's text is not).
          reason: claim.status === 'REJECTED' ? claim.reason : null,
          grantedOnLink: completedBeforeLink !== null,
          amount: claim.amount,
          assetSymbol: claim.assetSymbol,
          decimals: claim.decimals,
          source: claim.source,
          createdAt: claim.createdAt,
          updatedAt: claim.updatedAt,
          txHash: claim.txHash,
          explorerUrl: claim.explorerUrl,
        })),
      };
    },
  );
};
