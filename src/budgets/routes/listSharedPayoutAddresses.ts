// GET /admin/v1/payout-addresses/shared: payout addresses bound by more than one account, with
// those accounts (one wallet, many accounts: a farming sign; docs/rewards.md "Caps").
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { component, errorResponses, ListQuery } from '../../http/schemas.ts';
import { listSharedPayoutAddresses } from '../payout-addresses.ts';
import { security, tags } from './schemas.ts';

const SharedPayoutAddress = Type.Object(
  {
    address: Type.String({ description: 'The payout address, lower case' }),
    accounts: Type.Array(
      Type.Object({
        accountId: Type.String(),
        displayName: Type.Union([Type.String(), Type.Null()]),
        chainId: Type.Integer({ description: 'The chain the account bound the address for' }),
        boundAt: Type.String(),
      }),
    ),
  },
  {
    ...component('SharedPayoutAddress'),
    description: 'A payout address that several platform accounts have bound, and those accounts',
  },
);

export const listSharedPayoutAddressesRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { database } = app.deps;
  app.get(
    '/payout-addresses/shared',
    {
      schema: {
        operationId: 'listSharedPayoutAddresses',
        tags,
        security,
        summary: 'Payout addresses bound by more than one account (most accounts first)',
        querystring: ListQuery,
        response: {
          200: Type.Object(
            { items: Type.Array(SharedPayoutAddress), total: Type.Integer() },
            {
              examples: [
                {
                  items: [
                    {
                      address: '0x8ba1f109551bd432803012645ac136ddd64dba72',
                      accounts: [
                        {
                          accountId: 'acc_4f2b8c1d9e7a6b5c',
                          displayName: 'Mina',
                          chainId: 8217,
                          boundAt: '2026-11-20T08:00:00.000Z',
                        },
                        {
                          accountId: 'acc_9a1c3e5f7b2d4c6e',
                          displayName: null,
                          chainId: 8217,
                          boundAt: '2026-11-21T09:30:00.000Z',
                        },
                      ],
                    },
                  ],
                  total: 1,
                },
              ],
            },
          ),
          ...errorResponses(),
        },
      },
    },
    async (request) =>
      listSharedPayoutAddresses(database.db, request.query.limit ?? 100, request.query.offset ?? 0),
  );
};
