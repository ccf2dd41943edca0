// GET /v1/me/claims: my reward claims, with the chain transfer of those paid on a chain.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { myClaims } from '../claims.ts';
import { ClaimStatus, MY_PAGE_DEFAULT, MyClaim, NextCursor, PageQuery, pageOf, tags } from './schemas.ts';

export const myClaimsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/claims',
    {
      schema: {
        operationId: 'listMyClaims',
        tags,
        summary: 'My reward claims',
        querystring: Type.Object(
          { status: Type.Optional(ClaimStatus), ...PageQuery },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({ items: Type.Array(MyClaim), nextCursor: NextCursor }),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const { status, cursor, limit = MY_PAGE_DEFAULT } = request.query;
      const filter = { accountId: request.account.id, status, afterId: cursor };
      const page = pageOf(await myClaims(db, filter, limit + 1), limit);
      return {
        nextCursor: page.nextCursor,
        items: page.items.map(({ completedBeforeLink, ...claim }) => ({
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
          waitsForWallet: claim.waitsForWallet,
        })),
      };
    },
  );
};
