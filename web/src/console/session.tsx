// The console's sign-in: an admin credential secret pasted once, kept in sessionStorage (gone when
// the tab closes), sent as a Bearer token; GET /admin/v1/me says whose it is and its role.
import { createContext, useContext } from 'react';
import { createApiClient } from '../shared/api-client.ts';
import type { ApiClient } from '../shared/api-client.ts';
import type { AdminIdentity } from './types.ts';

export interface ConsoleSession {
  identity: AdminIdentity;
  /** OPERATOR and OWNER may change things; a VIEWER only reads (the server refuses writes, 901). */
  canWrite: boolean;
  /** The operator API, typed from /openapi.json, sending the secret; a revoked one signs out (3200). */
  api: ApiClient;
  signOut(): void;
}

const STORAGE_KEY = 'mrs.console.secret';

export function storedSecret(): string | undefined {
  try {
    return sessionStorage.getItem(STORAGE_KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function storeSecret(secret: string | undefined): void {
  try {
    if (secret === undefined) sessionStorage.removeItem(STORAGE_KEY);
    else sessionStorage.setItem(STORAGE_KEY, secret);
  } catch {
    // Storage blocked (private mode): the session lasts as long as the page.
  }
}

export function whoAmI(secret: string, signal?: AbortSignal): Promise<AdminIdentity> {
  return createApiClient({ bearer: secret }).get('/admin/v1/me', { ...(signal && { signal }) });
}

export const SessionContext = createContext<ConsoleSession | null>(null);

export function useSession(): ConsoleSession {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in console');
  return session;
}
