// The admin credential routes' shared schemas: the role, the credential (and the new one with its
// secret), the tag and the admin security scheme.
import { Type } from 'typebox';
import { component, EXAMPLE } from '../../http/schemas.ts';

export const Role = Type.Union([Type.Literal('OWNER'), Type.Literal('OPERATOR'), Type.Literal('VIEWER')], {
  ...component('AdminRole'),
  description: 'What a credential may do: VIEWER reads, OPERATOR writes, OWNER also manages credentials',
});
export const AdminCredential = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    role: Role,
    prefix: Type.String({
      description:
        'First characters of a generated secret (adm_…), to recognise it; empty for the ADMIN_TOKEN credential, whose secret a person chose',
    }),
    createdAt: Type.String(),
    revokedAt: Type.Union([Type.String(), Type.Null()]),
  },
  {
    ...component('AdminCredential'),
    examples: [
      {
        id: EXAMPLE.adminId,
        name: 'ops: Jiwoo',
        role: 'OPERATOR',
        prefix: 'adm_Vq3Lx9',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
      },
    ],
  },
);
export const NewAdminCredential = Type.Intersect(
  [
    AdminCredential,
    Type.Object({ secret: Type.String({ description: 'adm_...: shown only in this answer' }) }),
  ],
  {
    ...component('NewAdminCredential'),
    examples: [
      {
        id: EXAMPLE.adminId,
        name: 'ops: Jiwoo',
        role: 'OPERATOR',
        prefix: 'adm_Vq3Lx9',
        createdAt: EXAMPLE.instant,
        revokedAt: null,
        secret: 'adm_Vq3Lx9mK2tNw7cRb4yPe1sZd6gHa3uJf0oVi5kXq7tC',
      },
    ],
  },
);
export const tags = ['admin: credentials'];
export const security = [{ adminBearer: [] }];
