// Which environment an API key belongs to, read from its prefix alone (docs/environments.md):
// mrk_test_… is a preview key, mrk_live_… a production key. Keys issued before environments existed
// (mrk_ and 43 characters, 47 in all: the new ones are 52) name none and work where they were issued.
import type { ServiceEnvironment } from '../config.ts';

export const KEY_PREFIXES: Readonly<Record<ServiceEnvironment, string>> = {
  preview: 'mrk_test',
  production: 'mrk_live',
};

/** Length of a key issued before environments: 'mrk_' + 32 random bytes in base64url. */
const LEGACY_KEY_LENGTH = 47;

/** The environment a key names, or undefined for a key that names none (an older key, or not a key of ours). */
export function environmentOfKey(apiKey: string): ServiceEnvironment | undefined {
  if (apiKey.length === LEGACY_KEY_LENGTH) return undefined;
  if (apiKey.startsWith(`${KEY_PREFIXES.preview}_`)) return 'preview';
  if (apiKey.startsWith(`${KEY_PREFIXES.production}_`)) return 'production';
  return undefined;
}

/** The refusal of a key of the other environment, in words a developer acts on. */
export function wrongEnvironmentMessage(key: ServiceEnvironment): string {
  return key === 'preview'
    ? 'this is a preview (mrk_test_) API key sent to production; use a production (mrk_live_) key here, or call the preview base address'
    : 'this is a production (mrk_live_) API key sent to preview; use a preview (mrk_test_) key here, or call the production base address';
}
