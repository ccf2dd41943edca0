// The user wallet routes' shared schemas (/v1/me/wallet): the tag, the address, the example SIWE
// message and the bound wallet.
import { Type } from 'typebox';
import { component, EXAMPLE } from '../../http/schemas.ts';

export const tags = ['user: wallet'];
export const Address = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'An EVM address',
  examples: ['0x8ba1f109551bD432803012645Ac136ddd64DBA72'],
});
/** An example EIP-4361 (Sign-In with Ethereum) message, as the challenge gives it. */
export const SIWE_MESSAGE =
  'localhost:8080 wants you to sign in with your Ethereum account:\n' +
  '0x8ba1f109551bD432803012645Ac136ddd64DBA72\n\nBind this wallet to your rewards account.\n\n' +
  'URI: http://localhost:8080\nVersion: 1\nChain ID: 11155111\nNonce: 7Qm2xK9vLc4tNw1y\n' +
  'Issued At: 2026-11-24T09:00:00.000Z\nExpiration Time: 2026-11-24T09:10:00.000Z';
export const Wallet = Type.Object(
  { address: Type.String(), chainId: Type.Integer(), boundAt: Type.String() },
  {
    ...component('UserWallet'),
    description: "The signed-in user's wallet that chain rewards are paid to",
    examples: [{ address: EXAMPLE.wallet, chainId: 11155111, boundAt: EXAMPLE.later }],
  },
);
