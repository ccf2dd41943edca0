// What a browser test starts: the pages built for the run (test/e2e/web-build.ts), the service on a
// free port serving them (its clock at the real time, so ages read as they will), headless Chromium
// and, for the chain journeys, the development chain; and the console signed in as the test's OWNER.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { ADMIN_TOKEN, startTestApp } from '../harness.ts';
import type { TestContext } from '../harness.ts';
import { startTestChain, TEST_KEK } from '../chain/chain-fixture.ts';
import { freePort, launchChromium } from './browser.ts';
import { builtWeb } from './web-build.ts';

export type TestChain = Awaited<ReturnType<typeof startTestChain>>;

export interface BrowserApp {
  ctx: TestContext;
  browser: Browser;
  /** http://127.0.0.1:<port>, where the service serves the API and the pages. */
  appUrl: string;
  close(): Promise<void>;
}

async function start(env: Record<string, string>, withChain: boolean) {
  const port = await freePort();
  const appUrl = `http://127.0.0.1:${port}`;
  // The server looks for the built pages when it starts: build them first (on PostgreSQL the app
  // starts faster than Vite builds, and would then serve "the web pages are not built").
  const [ctx, browser, chain] = await Promise.all([
    builtWeb().then((distDir) =>
      startTestApp({
        env: {
          PUBLIC_BASE_URL: appUrl,
          WEB_DIST_DIR: distDir,
          ...(withChain && { WALLET_KEK: TEST_KEK.toString('hex') }),
          ...env,
        },
        now: new Date().toISOString(),
      }),
    ),
    launchChromium(),
    withChain ? startTestChain() : undefined,
  ]);
  await ctx.app.listen({ port, host: '127.0.0.1' });
  const close = async () => {
    await browser.close();
    await ctx.close();
    await chain?.cleanup();
  };
  return { ctx, browser, appUrl, chain, close };
}

/** `env` adds to (or overrides) the service's settings. */
export async function startBrowserApp(env: Record<string, string> = {}): Promise<BrowserApp> {
  return start(env, false);
}

/** The same with the development chain started and the wallet key-encryption key set. */
export async function startBrowserAppWithChain(
  env: Record<string, string> = {},
): Promise<BrowserApp & { chain: TestChain }> {
  const app = await start(env, true);
  if (!app.chain) throw new Error('the development chain did not start');
  return { ...app, chain: app.chain };
}

/** The answer of a setup call, which must have `status`; its JSON body. */
export async function created<T = { id: string }>(
  response: Promise<{ statusCode: number; body: string }>,
  status = 201,
): Promise<T> {
  const r = await response;
  if (r.statusCode !== status) throw new Error(`setup: ${r.statusCode} ${r.body}`);
  return JSON.parse(r.body) as T;
}

/** A console in `language`, signed in with the test's OWNER token; a phone-sized one is a touch phone. */
export async function openConsole(
  app: BrowserApp,
  viewport: { width: number; height: number },
  language: string,
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await app.browser.newContext({
    viewport,
    ...(viewport.width < 500 && { isMobile: true, hasTouch: true }),
    locale: 'en-US',
    bypassCSP: true,
  });
  await context.addInitScript(`localStorage.setItem('mrs.console.language', '${language}')`);
  await context.addInitScript(`sessionStorage.setItem('mrs.console.secret', '${ADMIN_TOKEN}')`);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page };
}

/** Opens a console page and waits until its heading is drawn and its requests have answered. */
export async function settle(app: BrowserApp, page: Page, url: string): Promise<void> {
  await page.goto(`${app.appUrl}${url}`);
  await page.locator('main h1').first().waitFor();
  await page.waitForLoadState('networkidle');
}
