// The development first-OWNER sign-in: start-up prints /console/#first-sign-in=<code>; before the
// console renders, the code is exchanged once for the first OWNER credential, whose secret becomes
// this tab's sign-in (src/admins/first-sign-in.ts). The code leaves the address bar at once.
import { apiRequest, retryTransient } from '../shared/api.ts';
import { storeSecret } from './session.tsx';

/** Exchanges a first sign-in code in the address, if any; a failure is answered for the sign-in form. */
export async function exchangeFirstSignInCode(): Promise<unknown> {
  const match = /(?:^#|&)first-sign-in=([A-Za-z0-9_-]+)/.exec(window.location.hash);
  if (!match?.[1]) return undefined;
  window.history.replaceState(null, '', window.location.pathname + window.location.search);
  try {
    const code = match[1];
    // The code has left the address bar: a service still starting (503) or not reached yet is tried
    // again, or the newcomer would have to find the printed link again. A 503 comes before the code
    // is used (its transaction rolls back), so the retry finds it unused.
    const created = await retryTransient(() =>
      apiRequest<{ secret: string }>('POST', '/admin/v1/first-sign-in', { body: { code } }),
    );
    storeSecret(created.secret);
    return undefined;
  } catch (error) {
    return error;
  }
}
