// The assets the console's real-data tests share: an 18-decimal token (DEVT) with a 30-digit budget
// and a 0-decimal one (GEM), each with a FIXED budget, created through the admin API.
import type { TestContext } from '../harness.ts';
import { created } from './browser-app.ts';

export interface RealAssets {
  devt: string;
  gem: string;
  tokenBudget: string;
  gemBudget: string;
}

export async function seedRealAssets(ctx: TestContext, options: { gemTotal: string }): Promise<RealAssets> {
  const asset = async (symbol: string, name: string, decimals: number) =>
    (await created(ctx.admin('POST', '/admin/v1/reward-assets', { symbol, name, decimals }))).id;
  const budget = async (assetId: string, name: string, total: string) =>
    (await created(ctx.admin('POST', '/admin/v1/budgets', { type: 'FIXED', assetId, name, total }))).id;
  const devt = await asset('DEVT', 'Dev token', 18);
  const gem = await asset('GEM', 'Gems', 0);
  return {
    devt,
    gem,
    tokenBudget: await budget(devt, 'Winter festival token pool', '123456789012.123456789012345678'),
    gemBudget: await budget(gem, 'Gems', options.gemTotal),
  };
}
