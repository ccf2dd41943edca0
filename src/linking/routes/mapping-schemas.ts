// The operator's view of a linked user (the mapping and its platform account), with the params and
// tag of the routes that read or remove one.
import { Type } from 'typebox';
import { component, EXAMPLE, Id, PartnerUid } from '../../http/schemas.ts';

/** A linked user as operators see it: the mapping and its platform account. */
export const Mapping = Type.Object(
  {
    partnerId: Type.String(),
    partnerUid: Type.String(),
    region: Type.String(),
    linkedAt: Type.String(),
    account: Type.Object({
      id: Type.String(),
      issuer: Type.String(),
      subject: Type.String({ description: "The login provider's user id (LINE: the user's LINE id)" }),
      displayName: Type.Union([Type.String(), Type.Null()]),
      createdAt: Type.String(),
    }),
  },
  {
    ...component('Mapping'),
    description: 'A linked user: the mapping of a partner user to a platform account, with the account',
    examples: [
      {
        partnerId: EXAMPLE.partnerId,
        partnerUid: EXAMPLE.partnerUid,
        region: 'KR',
        linkedAt: EXAMPLE.later,
        account: {
          id: EXAMPLE.accountId,
          issuer: 'https://access.line.me',
          subject: 'U4af4980629a1b2c3d4e5f60718293a4b',
          displayName: 'Minji',
          createdAt: EXAMPLE.instant,
        },
      },
    ],
  },
);
export const params = Type.Object({ partnerId: Id('Partner id'), partnerUid: PartnerUid });
export const tags = ['admin: users'];
export const security = [{ adminBearer: [] }];
