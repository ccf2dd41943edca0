import { describe, expect, it } from 'vitest';
import { matchRedirectUrl, safeReturnUrl, withOutcome, withParam } from './redirect-url.ts';
import { RETURN_TO_BYPASSES } from '../../test/return-to-bypasses.ts';

const registered = ['https://partner.example/link/done', 'http://localhost:3000/cb'];

describe('matchRedirectUrl', () => {
  it('accepts a registered URL with any query and answers the normalised URL', () => {
    expect(matchRedirectUrl(registered, 'https://partner.example/link/done')?.href).toBe(
      'https://partner.example/link/done',
    );
    expect(matchRedirectUrl(registered, 'https://PARTNER.example:443/link/done?x=1&y=2')?.href).toBe(
      'https://partner.example/link/done?x=1&y=2',
    );
    expect(matchRedirectUrl(registered, 'http://localhost:3000/cb?next=%2Fhome')?.href).toBe(
      'http://localhost:3000/cb?next=%2Fhome',
    );
  });

  it.each([
    ['another host', 'https://evil.example/link/done'],
    ['a look-alike host', 'https://partner.example.evil.example/link/done'],
    ['credentials before the host', 'https://partner.example@evil.example/link/done'],
    ['encoded @ in the authority', 'https://partner.example%40evil.example/link/done'],
    ['user info with the right host', 'https://user:pw@partner.example/link/done'],
    ['a scheme change', 'http://partner.example/link/done'],
    ['javascript:', 'javascript:alert(1)//https://partner.example/link/done'],
    ['data:', 'data:text/html,<script>alert(1)</script>'],
    ['another port', 'https://partner.example:8443/link/done'],
    ['another path', 'https://partner.example/link/done/extra'],
    ['a path prefix', 'https://partner.example/link'],
    ['a trailing slash', 'https://partner.example/link/done/'],
    ['path traversal', 'https://partner.example/link/done/../../evil'],
    ['encoded traversal', 'https://partner.example/link/%2e%2e/evil'],
    ['an encoded slash', 'https://partner.example/link%2Fdone'],
    ['a backslash', 'https://partner.example\\@evil.example/link/done'],
    ['protocol-relative', '//evil.example/link/done'],
    ['a fragment', 'https://partner.example/link/done#frag'],
    ['a tab inside', 'https://partner.exa\tmple/link/done'],
    ['not a URL', 'not a url'],
    ['empty', ''],
  ])('refuses %s', (_label, raw) => {
    expect(matchRedirectUrl(registered, raw)).toBeUndefined();
  });

  it('refuses everything when nothing is registered', () => {
    expect(matchRedirectUrl([], 'https://partner.example/link/done')).toBeUndefined();
  });
});

const BASE = 'https://rewards.example';
const returnUrl = (raw: string | undefined) => safeReturnUrl(raw, { base: BASE, fallback: '/app' });

describe('safeReturnUrl', () => {
  it('keeps pages under /app, as an absolute URL on our public base', () => {
    expect(returnUrl(undefined)).toBe(`${BASE}/app`);
    expect(returnUrl('')).toBe(`${BASE}/app`);
    expect(returnUrl('/app')).toBe(`${BASE}/app`);
    expect(returnUrl('/app/missions?tab=2')).toBe(`${BASE}/app/missions?tab=2`);
    expect(returnUrl('/app?tab=rewards')).toBe(`${BASE}/app?tab=rewards`);
    // Normalised first, then checked: a dot segment that stays under /app is fine.
    expect(returnUrl('/app/draws/../missions')).toBe(`${BASE}/app/missions`);
    // A doubled slash after /app stays a path on our origin.
    expect(returnUrl('/app//evil.com')).toBe(`${BASE}/app//evil.com`);
    // The fragment is not ours to carry.
    expect(returnUrl('/app#x')).toBe(`${BASE}/app`);
  });

  it.each(RETURN_TO_BYPASSES.filter((raw) => raw !== ''))('refuses %j', (raw) => {
    expect(returnUrl(raw)).toBeUndefined();
  });

  it('whatever it accepts is on our origin under /app, however it was written', () => {
    for (const raw of [...RETURN_TO_BYPASSES, '/app/x', '/app/./y', '/app/%2e/z']) {
      const out = returnUrl(raw);
      if (out === undefined) continue;
      const url = new URL(out);
      expect(url.origin, raw).toBe(BASE);
      expect(url.pathname === '/app' || url.pathname.startsWith('/app/'), raw).toBe(true);
      // The answer is already normalised: parsing it again changes nothing.
      expect(url.href, raw).toBe(out);
    }
  });
});

describe('withParam', () => {
  it('sets a parameter, replacing one of the same name', () => {
    expect(withParam('https://p.example/cb?token=forged&a=1', 'token', 'real')).toBe(
      'https://p.example/cb?token=real&a=1',
    );
  });
});

describe('withOutcome', () => {
  it('removes every token and error the URL had before setting ours', () => {
    const registered = 'https://p.example/cb?token=forged&error=fake&token=again&a=1';
    const success = new URL(withOutcome(registered, 'token', 'real'));
    expect(success.searchParams.getAll('token')).toEqual(['real']);
    expect(success.searchParams.has('error')).toBe(false);
    expect(success.searchParams.get('a')).toBe('1');
    const failed = new URL(withOutcome(registered, 'error', 'access_denied'));
    expect(failed.searchParams.getAll('error')).toEqual(['access_denied']);
    expect(failed.searchParams.has('token')).toBe(false);
  });
});
