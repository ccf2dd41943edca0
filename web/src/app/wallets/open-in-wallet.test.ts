import { describe, expect, it } from 'vitest';
import { walletAppLinks } from './open-in-wallet.ts';

describe('walletAppLinks', () => {
  it('Kaia Wallet takes the whole address; MetaMask the address without its scheme, unencoded', () => {
    const links = walletAppLinks('https://rewards.example.com/app?lang=ko#missions');
    expect(links).toEqual([
      {
        id: 'kaia-wallet',
        name: 'Kaia Wallet',
        href: 'https://app.kaiawallet.io/u/https://rewards.example.com/app?lang=ko#missions',
      },
      {
        id: 'metamask',
        name: 'MetaMask',
        href: 'https://link.metamask.io/dapp/rewards.example.com/app?lang=ko#missions',
      },
    ]);
  });

  it('keeps a port', () => {
    expect(walletAppLinks('http://127.0.0.1:8080/app')[1]?.href).toBe(
      'https://link.metamask.io/dapp/127.0.0.1:8080/app',
    );
  });
});
