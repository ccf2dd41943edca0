// POST /admin/v1/demo: the console's "Start the demo" (OWNER, development only): seeds what `npm run
// demo` seeds (seed.ts) by calling the operator API in this process with the caller's own credential.
// The nested calls run inside this request's operator transaction (src/db/request-transaction.ts:
// nested units join it as savepoints), so a refused step keeps nothing; each step is audited as its
// own route under the caller's name.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { errorResponses, EXAMPLE } from '../../http/schemas.ts';
import { demoDevelopmentOnly, demoSeedFailed } from '../../error-factories.ts';
import { partnerServerCommand, seedDemo } from '../seed.ts';
import type { OperatorCall } from '../seed.ts';

const DEFAULT_PARTNER_SERVER_URL = 'http://localhost:3000';

export const startDemoRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app.deps;
  app.post(
    '/demo',
    {
      config: { minRole: 'OWNER' },
      schema: {
        operationId: 'startDemo',
        tags: ['admin: credentials'],
        security: [{ adminBearer: [] }],
        summary:
          'Development only: seed the demo token campaign (partner, key, funded budget, promotion, webhook endpoint)',
        description:
          'What `npm run demo` seeds, for examples/partner-server at `partnerServerUrl`. The API key and the webhook secret are shown only in this answer. Refused with 3625 in production.',
        body: Type.Object(
          {
            partnerServerUrl: Type.Optional(
              Type.String({
                format: 'uri',
                maxLength: 500,
                description: `Where examples/partner-server listens (default ${DEFAULT_PARTNER_SERVER_URL})`,
              }),
            ),
            assetId: Type.Optional(
              Type.String({
                minLength: 1,
                maxLength: 100,
                description:
                  "The asset paid: the development chain's token (ast_devtoken) by default; a ledger asset gets no reward wallet",
              }),
            ),
          },
          { additionalProperties: false, examples: [{ partnerServerUrl: DEFAULT_PARTNER_SERVER_URL }] },
        ),
        response: {
          201: Type.Object(
            {
              partnerId: Type.String(),
              apiKey: Type.String({ description: 'mrk_...: shown only in this answer' }),
              webhookSecret: Type.String({ description: 'shown only in this answer' }),
              budgetId: Type.String(),
              promotionId: Type.String(),
              missionKeys: Type.Array(Type.String()),
              rewardWalletAddress: Type.Union([Type.String(), Type.Null()], {
                description: "The budget's reward wallet; null for a ledger asset",
              }),
              partnerServerUrl: Type.String(),
              partnerServerCommand: Type.String({
                description: 'The shell command that starts examples/partner-server against this campaign',
              }),
            },
            {
              examples: [
                {
                  partnerId: EXAMPLE.partnerId,
                  apiKey: 'mrk_Vq3Lx9mK2tNw7cRb4yPe1sZd6gHa3uJf0oVi5kXq7tC',
                  webhookSecret: 'whsec_4Xk2mP9qLw7tNc3vBz8yRd1sHf6gJa0u',
                  budgetId: 'bdg_Q2w8Lk3vN7cX1mRt9yPe4A',
                  promotionId: EXAMPLE.promotionId,
                  missionKeys: ['daily-login', 'play-3-games'],
                  rewardWalletAddress: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
                  partnerServerUrl: DEFAULT_PARTNER_SERVER_URL,
                  partnerServerCommand:
                    'MRS_BASE_URL=http://localhost:8080 … npx tsx examples/partner-server/server.ts',
                },
              ],
            },
          ),
          ...errorResponses('DEMO_DEVELOPMENT_ONLY', 'DEMO_SEED_FAILED'),
        },
      },
    },
    async (request, reply) => {
      if (config.nodeEnv === 'production') throw demoDevelopmentOnly();
      const authorization = request.headers.authorization ?? '';
      // The operator API itself, as the caller: the same validation, roles and audit as `npm run demo`.
      const call: OperatorCall = async (method, url, body) => {
        const answer = await app.inject({
          method,
          url,
          // The same request id: the steps' audit rows are this request's.
          headers: { authorization, 'x-request-id': request.id },
          ...(body !== undefined && { payload: body as object }),
        });
        let parsed: unknown = null;
        try {
          parsed = answer.json();
        } catch {
          parsed = answer.body;
        }
        return { status: answer.statusCode, body: parsed };
      };
      const partnerServerUrl = (request.body.partnerServerUrl ?? DEFAULT_PARTNER_SERVER_URL).replace(
        /\/+$/,
        '',
      );
      let demo;
      try {
        demo = await seedDemo(call, {
          partnerServerUrl,
          ...(request.body.assetId !== undefined && { assetId: request.body.assetId }),
        });
      } catch (error) {
        throw demoSeedFailed(error instanceof Error ? error.message : String(error));
      }
      return reply.code(201).send({
        ...demo,
        partnerServerUrl,
        partnerServerCommand: partnerServerCommand(config.publicBaseUrl, partnerServerUrl, demo),
      });
    },
  );
};
