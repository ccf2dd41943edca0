// End-user API: the signed-in account's claims, tickets and balances (docs/plans/me-api.md).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses } from '../../http/schemas.ts';
import { listClaims } from '../../claims/service.ts';
import { withChainTransactions } from '../../chain/claim-transactions.ts';
import { listTickets } from '../../draws/tickets.ts';
import { balancesOf } from '../../payout/ledger.ts';
import { missionsOf, ticketsNotReceived, withMissionTitlesIn } from '../../me/missions.ts';
import { LangQuery, readerLanguage } from '../../catalog/titles.ts';
import { Balance } from './admin.ts';

const ClaimStatus = Type.Union([
  Type.Literal('RESERVED'),
  Type.Literal('REQUESTED'),
  Type.Literal('REJECTED'),
  Type.Literal('SUCCEEDED'),
  Type.Literal('FAILED'),
]);

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const MyMission = Type.Object({
  partnerId: Type.String(),
  partnerName: Type.String(),
  promotionId: Type.String(),
  promotionTitle: Type.String(),
  promotionType: Type.String(),
  missionGroupId: Type.String(),
  groupTitle: Type.String(),
  missionId: Type.String(),
  missionKey: Type.String(),
  title: Type.String(),
  recurrence: Type.String(),
  periodKey: Type.String(),
  target: Nullable(Type.Integer()),
  current: Nullable(Type.Integer()),
  completed: Type.Boolean(),
  completedAt: Nullable(Type.String()),
  reward: Nullable(
    Type.Object({ type: Type.String(), amount: Nullable(Type.String()), assetSymbol: Type.String() }),
  ),
  claim: Nullable(
    Type.Object(
      {
        status: Type.String(),
        reason: Nullable(
          Type.String({
            description: 'Why a REJECTED claim was refused: BUDGET_EXHAUSTED, CAP_REACHED or EXPIRED',
          }),
        ),
        grantedOnLink: Type.Boolean({
          description: 'Completed before the account was linked; granted at the link',
        }),
      },
      { description: "This period's claim of the mission's reward, if any" },
    ),
  ),
});
const MyStreak = Type.Object({
  promotionId: Type.String(),
  promotionTitle: Type.String(),
  current: Type.Integer(),
  best: Type.Integer(),
  lastCheckDate: Nullable(Type.String()),
});

export const rewardsMeRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const db = app.deps.database.db;
  app.get(
    '/missions',
    {
      schema: {
        tags: ['user'],
        summary:
          "My missions in the active promotions of every linked partner, with this period's progress and check-in streaks",
        querystring: Type.Object({ lang: LangQuery }, { additionalProperties: false }),
        response: {
          200: Type.Object({ items: Type.Array(MyMission), streaks: Type.Array(MyStreak) }),
          ...errorResponses(401),
        },
      },
    },
    async (request) =>
      missionsOf(
        db,
        request.account.id,
        app.deps.clock.now(),
        readerLanguage(request.query.lang, request.headers['accept-language']),
      ),
  );
  app.get(
    '/claims',
    {
      schema: {
        tags: ['user'],
        summary: 'My reward claims',
        querystring: Type.Object({ status: Type.Optional(ClaimStatus) }, { additionalProperties: false }),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                id: Type.String(),
                status: Type.String(),
                reason: Nullable(Type.String()),
                grantedOnLink: Type.Boolean(),
                amount: Type.String(),
                assetSymbol: Type.String(),
                decimals: Type.Integer(),
                source: Type.String(),
                createdAt: Type.String(),
                updatedAt: Type.String(),
                // [chain payout] the transfer of a claim paid on chain, with its explorer link.
                txHash: Nullable(Type.String()),
                explorerUrl: Nullable(Type.String()),
              }),
            ),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const items = await withChainTransactions(
        db,
        await listClaims(db, { accountId: request.account.id, status: request.query.status }, 500, 0),
      );
      return {
        items: items.map(
          ({
            id,
            status,
            reason,
            completedBeforeLink,
            amount,
            assetSymbol,
            decimals,
            source,
            createdAt,
            updatedAt,
            txHash,
            explorerUrl,
          }) => ({
            id,
            status,
            // Only a refusal's reason is the user's business (a payout error's text is not).
            reason: status === 'REJECTED' ? reason : null,
            grantedOnLink: completedBeforeLink !== null,
            amount,
            assetSymbol,
            decimals,
            source,
            createdAt,
            updatedAt,
            txHash,
            explorerUrl,
          }),
        ),
      };
    },
  );
  app.get(
    '/tickets',
    {
      schema: {
        tags: ['user'],
        summary:
          'My lucky-draw tickets by TicketFilter; NOT_RECEIVED lists lucky-draw missions without a ticket this period',
        querystring: Type.Object(
          {
            filter: Type.Optional(
              Type.Union([Type.Literal('NOT_RECEIVED'), Type.Literal('RECEIVED'), Type.Literal('DRAWN')]),
            ),
            lang: LangQuery,
          },
          { additionalProperties: false },
        ),
        response: {
          200: Type.Object({
            items: Type.Array(
              Type.Object({
                id: Nullable(Type.String()),
                missionId: Type.String(),
                missionTitle: Type.String(),
                status: Type.String(),
                periodKey: Type.String(),
                drawId: Nullable(Type.String()),
                won: Nullable(Type.Boolean()),
                createdAt: Nullable(Type.String()),
              }),
            ),
          }),
          ...errorResponses(400, 401),
        },
      },
    },
    async (request) => {
      const filter = request.query.filter;
      const lang = readerLanguage(request.query.lang, request.headers['accept-language']);
      if (filter === 'NOT_RECEIVED') {
        const links = await db
          .selectFrom('user_mappings')
          .select(['partner_id', 'partner_uid'])
          .where('account_id', '=', request.account.id)
          .execute();
        const missing = await ticketsNotReceived(db, links, app.deps.clock.now(), lang);
        return {
          items: missing.map(
            ({ id, missionId, missionTitle, status, periodKey, drawId, won, createdAt }) => ({
              id,
              missionId,
              missionTitle,
              status,
              periodKey,
              drawId,
              won,
              createdAt,
            }),
          ),
        };
      }
      const items = await withMissionTitlesIn(
        db,
        await listTickets(db, { accountId: request.account.id, status: filter }, 500, 0),
        lang,
      );
      return {
        items: items.map(({ id, missionId, missionTitle, status, periodKey, drawId, won, createdAt }) => ({
          id,
          missionId,
          missionTitle,
          status,
          periodKey,
          drawId,
          won,
          createdAt,
        })),
      };
    },
  );
  app.get(
    '/balances',
    {
      schema: {
        tags: ['user'],
        summary: 'My balances per asset',
        response: { 200: Type.Object({ items: Type.Array(Balance) }), ...errorResponses(401) },
      },
    },
    async (request) => ({ items: await balancesOf(db, request.account.id) }),
  );
};
