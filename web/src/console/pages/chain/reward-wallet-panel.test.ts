import { describe, expect, it } from 'vitest';
import { weiAsCoins } from './RewardWalletPanel.tsx';

// #31 item 11: gas was shown in raw wei ("1500000000000000000"); the panel shows whole coins.
describe("the reward wallet's gas balance", () => {
  it('turns wei into whole coins exactly, grouped, without trailing zeros', () => {
    expect(weiAsCoins('1500000000000000000')).toBe('1.5');
    expect(weiAsCoins('10000000000000000000000')).toBe('10,000');
    expect(weiAsCoins('1')).toBe('0.000000000000000001');
    expect(weiAsCoins('0')).toBe('0');
    expect(weiAsCoins('123456789012345678901234')).toBe('123,456.789012345678901234');
  });
  it('leaves anything that is not a wei amount as it is', () => {
    expect(weiAsCoins('unknown')).toBe('unknown');
  });
});
