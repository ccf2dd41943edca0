// Every on/off setting of the README's configuration table parses the same strict way: 'true' or
// 'false' in any case, anything else stops start-up naming the variable. PAYOUT_WORKER=0 used to
// leave the worker on while WEBHOOK_WORKER=0 failed at start.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';

// The flags are the rows of the README's table whose default is `true` or `false`: a new flag
// documented there is checked here without editing this file.
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const flags = [...readme.matchAll(/^\| `([A-Z0-9_]+)` *\| `(true|false)`/gm)].map(
  (match) => match[1] as string,
);

function configWith(name: string, value: string) {
  return loadConfig({ [name]: value });
}

describe('on/off settings', () => {
  it('the README documents the flags this test checks', () => {
    expect(flags).toEqual(expect.arrayContaining(['PAYOUT_WORKER', 'WEBHOOK_WORKER', 'DEV_CHAIN']));
  });

  it.each(flags.flatMap((name) => ['0', '1', 'no', 'yes', 'off', 'tru'].map((value) => [name, value])))(
    '%s=%s stops start-up naming the variable',
    (name, value) => {
      expect(() => configWith(name, value)).toThrow(new RegExp(`${name} must be 'true' or 'false'`));
    },
  );

  it('reads any case of true and false alike for every flag', () => {
    expect(loadConfig({ PAYOUT_WORKER: 'False' }).payoutWorker).toBe(false);
    expect(loadConfig({ PAYOUT_WORKER: 'FALSE' }).payoutWorker).toBe(false);
    expect(loadConfig({ PAYOUT_WORKER: ' true ' }).payoutWorker).toBe(true);
    expect(loadConfig({ WEBHOOK_WORKER: 'False' }).webhooks.worker).toBe(false);
    expect(loadConfig({ DEV_CHAIN: 'FALSE' }).devChain).toBe(false);
    expect(
      loadConfig({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' }).tracing,
    ).toBe(undefined);
    for (const name of flags) {
      expect(() => configWith(name, 'False')).not.toThrow();
    }
  });
});
