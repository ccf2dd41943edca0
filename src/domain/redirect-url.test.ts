import { describe, expect, it } from 'vitest';
import { matchRedirectUrl, matchReturnPath, withParam } from './redirect-url.ts';

const registered = ['https://partner.example/link/done', 'http://localhost:3000/cb'];

describe('matchRedirectUrl', () => {
  it('accepts a registered URL with any query and answers the normalised URL', () => {
    expect(matchRedirectUrl(registered, 'https://partner.example/link/done')?.href).toBe('https://partner.example/link/done');
    expect(matchRedirectUrl(registered, 'https://PARTNER.example:443/link/done?x=1&y=2')?.href).toBe(
      'https://partner.example/link/done?x=1&y=2',
    );
    expect(matchRedirectUrl(registered, 'http://localhost:3000/cb?next=%2Fhome')?.href).toBe('http://localhost:3000/cb?next=%2Fhome');
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

describe('matchReturnPath', () => {
  it('keeps paths of this service', () => {
    expect(matchReturnPath(undefined, '/app')).toBe('/app');
    expect(matchReturnPath('/app/missions?tab=2', '/app')).toBe('/app/missions?tab=2');
  });

  it.each(['//evil.example', '/\\evil.example', 'https://evil.example/app', 'app', '/app\n'])('refuses %s', (raw) => {
    expect(matchReturnPath(raw, '/app')).toBeUndefined();
  });
});

describe('withParam', () => {
  it('sets a parameter, replacing one of the same name', () => {
    expect(withParam('https://p.example/cb?token=forged&a=1', 'token', 'real')).toBe('https://p.example/cb?token=real&a=1');
  });
});
