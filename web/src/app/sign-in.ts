// Signing in and out of the mission page: the sign-in link, and the mark that makes the next sign-in
// ask the provider for the login again after a sign-out (switching accounts, docs/i18n.md).
import { query } from '../shared/api.ts';

/** Set at sign-out: the next sign-in asks the login provider for the login again (switch accounts). */
export const SIGNED_OUT_KEY = 'missions.signed-out';

export function remember(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // storage refused: the provider may then sign the same user in again
  }
}

function signedOutHere(): boolean {
  try {
    return window.localStorage.getItem(SIGNED_OUT_KEY) !== null;
  } catch {
    return false;
  }
}

export function signInHref(): string {
  return `/v1/login${query({
    returnTo: window.location.pathname + window.location.search,
    prompt: signedOutHere() ? 'login' : undefined,
  })}`;
}
