// What a suite needs that a plain `npm test` may not have (PostgreSQL, Chromium, nginx, PostgreSQL's
// own binaries), as a reason or undefined. A suite skipped for want of one carries the reason in its
// name, and test/skipped-suites-reporter.ts lists every skipped suite with it at the end of the run:
// nothing is skipped silently. test/skip-reasons.happy.test.ts keeps bare `skipIf` out of the tests.
import { describe, it } from 'vitest';
import { hasChromium } from './e2e/browser.ts';

/** Undefined on real PostgreSQL (DATABASE_URL set), else why a suite needs it. */
export function needsPostgres(what = 'it needs real PostgreSQL'): string | undefined {
  const url = process.env.DATABASE_URL;
  return url !== undefined && url !== '' ? undefined : `${what}: set DATABASE_URL`;
}

/** Undefined when Debian's Chromium is there, or when CI demands the browser tests (REQUIRE_BROWSER=1: they then fail, never skip). */
export function needsChromium(): string | undefined {
  return hasChromium || process.env.REQUIRE_BROWSER === '1'
    ? undefined
    : 'no Chromium at /usr/bin/chromium (apt-get install chromium; .ci/run installs it)';
}

/** The first reason among several, so a suite that needs two things names the first it lacks. */
export function firstReason(...reasons: Array<string | undefined>): string | undefined {
  return reasons.find((reason) => reason !== undefined);
}

type Body = () => void | Promise<void>;

function named(name: string, reason: string): string {
  return `${name} [skipped: ${reason}]`;
}

/** `describe`, or `describe.skip` with the reason in its name when `reason` is set. */
export function describeUnless(reason: string | undefined) {
  return (name: string, body: Body, timeout?: number): void => {
    if (reason === undefined) describe(name, body, timeout);
    else describe.skip(named(name, reason), body);
  };
}

/** `it`, or `it.skip` with the reason in its name when `reason` is set. */
export function itUnless(reason: string | undefined) {
  return (name: string, body: Body, timeout?: number): void => {
    if (reason === undefined) it(name, body, timeout);
    else it.skip(named(name, reason), body);
  };
}
