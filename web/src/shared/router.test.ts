import { describe, expect, it } from 'vitest';
import { matchPath } from './router.ts';

describe('matchPath', () => {
  it('matches literal segments and captures parameters', () => {
    expect(matchPath('/console/partners/:id', '/console/partners/p_1')).toEqual({ id: 'p_1' });
    expect(matchPath('/console/partners', '/console/partners')).toEqual({});
    expect(matchPath('/console/partners/:id', '/console/partners')).toBeNull();
    expect(matchPath('/console/partners/:id', '/console/promotions/x')).toBeNull();
    expect(matchPath('/console/partners/:id', '/console/partners/a%20b')).toEqual({ id: 'a b' });
  });
});
