// Operator use cases of the chain payout, one module per concern: networks and assets
// (network-service.ts), reward wallets and their recovery (wallet-service.ts), the payouts list
// (payout-list-service.ts). The routes import them from here.
export * from './network-service.ts';
export * from './wallet-service.ts';
export * from './payout-list-service.ts';
