// The schemas the partner and API key operations share.
import { Type } from 'typebox';
import { component, EXAMPLE, Id } from '../../http/schemas.ts';

export const Cidrs = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: 100,
  description: 'IPs or CIDRs allowed to call achieve',
});
export const RedirectUrls = Type.Array(Type.String({ minLength: 1, maxLength: 2048 }), {
  maxItems: 50,
  description: 'Exact URLs (scheme, host, port, path) the login may return to; the query may vary',
});
export const Status = Type.Union(
  [Type.Literal('ACTIVE'), Type.Literal('DISABLED')],
  component('PartnerStatus'),
);
export const Partner = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    status: Status,
    allowedIps: Type.Array(Type.String()),
    redirectUrls: Type.Array(Type.String()),
    createdAt: Type.String(),
    updatedAt: Type.String(),
  },
  {
    ...component('Partner'),
    examples: [
      {
        id: EXAMPLE.partnerId,
        name: 'Acme Games',
        status: 'ACTIVE',
        allowedIps: ['203.0.113.10', '198.51.100.0/24'],
        redirectUrls: ['https://partner.example/mini-app/return'],
        createdAt: EXAMPLE.instant,
        updatedAt: EXAMPLE.later,
      },
    ],
  },
);
export const ApiKey = Type.Object(
  {
    id: Type.String(),
    partnerId: Type.String(),
    name: Type.Union([Type.String(), Type.Null()]),
    prefix: Type.String({ description: 'The first characters of the key, to recognise it' }),
    createdAt: Type.String(),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('ApiKey'),
    examples: [
      {
        id: EXAMPLE.apiKeyId,
        partnerId: EXAMPLE.partnerId,
        name: 'game server',
        prefix: 'mrk_test_Qx7v',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
      },
    ],
  },
);
export const NewApiKey = Type.Intersect(
  [
    ApiKey,
    Type.Object({ apiKey: Type.String({ description: 'The key itself: shown only in this answer' }) }),
  ],
  {
    ...component('NewApiKey'),
    examples: [
      {
        id: EXAMPLE.apiKeyId,
        partnerId: EXAMPLE.partnerId,
        name: 'game server',
        prefix: 'mrk_test_Qx7v',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
        apiKey: 'mrk_test_Qx7vL2mK9cTn4wRb8yPe1sZd6gHa3uJf0oVi5kXq7tCw2',
      },
    ],
  },
);
export const PartnerParams = Type.Object({ partnerId: Id('Partner id') });
export const tags = ['admin: partners'];
export const security = [{ adminBearer: [] }];
