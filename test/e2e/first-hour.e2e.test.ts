// The first hour, timed (#29 "How it is checked", second bullet): the service started as the README's
// Quick start says (`npm start`'s built equivalent: scripts/prestart.mjs, then the bundle) with an
// empty data folder, in development with no ADMIN_TOKEN; the printed one-time sign-in opened in
// Chromium; the demo started from the console's dashboard; examples/partner-server started with the
// command the console shows; a user links through it, binds the development wallet on the mission
// page, the partner reports a completion, and the page shows a SUCCEEDED claim with its transaction
// link; the example server has the verified claim.succeeded webhook. All within 5 minutes of wall
// time (the issue's own bound, generous on purpose: the machine is shared and CI is busy).
// The web pages are built before the clock starts (a clean clone's `npm install` builds them).
// Always on the embedded PGlite: the README's Quick start sets no DATABASE_URL.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { freePort, launchChromium } from './browser.ts';
import { builtWeb } from './web-build.ts';
import { describeUnless, needsChromium } from '../requirements.ts';

const FIVE_MINUTES = 5 * 60_000;

let dataDir: string;
let distDir: string;
let browser: Browser | undefined;
const children: ChildProcess[] = [];

/** Starts a child in a process group of its own; its output is kept for the test's messages. */
function start(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return { child, output: () => output };
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms: number) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit' });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${args.join(' ')} exited ${code}`)),
    );
  });
}

describeUnless(needsChromium())('the first hour from the README, timed', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'mrs-first-hour-data-'));
    // npm start's prestart: rebuilds the server bundle when a source is newer (never stale code).
    [distDir] = await Promise.all([builtWeb(), run(process.execPath, ['scripts/prestart.mjs'])]);
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    for (const child of children) {
      if (child.exitCode !== null || child.pid === undefined) continue;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
    rmSync(dataDir, { recursive: true, force: true });
  }, 30_000);

  it('start, sign in, start the demo, link, bind the dev wallet, complete: a paid token within 5 minutes', async () => {
    const [port, partnerPort] = await Promise.all([freePort(), freePort()]);
    const serviceUrl = `http://127.0.0.1:${port}`;
    const partnerUrl = `http://127.0.0.1:${partnerPort}`;
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const name of ['ADMIN_TOKEN', 'DATABASE_URL', 'REDIS_URL', 'VITEST', 'VITEST_WORKER_ID'])
      delete env[name];
    const began = Date.now();

    // 1. `WEBHOOK_ALLOW_PRIVATE_ADDRESSES=true npm start` (the built equivalent), empty data folder.
    const service = start(
      process.execPath,
      ['--import', './dist/server/register.mjs', 'dist/server/main.mjs'],
      {
        ...env,
        NODE_ENV: 'development',
        PORT: String(port),
        PUBLIC_BASE_URL: serviceUrl,
        DATA_DIR: dataDir,
        WEB_DIST_DIR: distDir,
        WEBHOOK_ALLOW_PRIVATE_ADDRESSES: 'true',
        LOG_LEVEL: 'warn',
      },
    );
    const signIn = await until(
      'the printed first sign-in',
      () => /First sign-in[^:]*: (\S+#first-sign-in=\S+)/.exec(service.output())?.[1],
      120_000,
    );
    expect(signIn.startsWith(`${serviceUrl}/console/`)).toBe(true);

    // 2. Open the link: the console as the first OWNER.
    const context = await (browser as Browser).newContext();
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') pageErrors.push(message.text());
    });
    await page.goto(signIn);
    // 3. The dashboard's "Start the demo" (refused while the dev chain still starts: try again).
    const demoPanel = page.getByTestId('demo-panel');
    await demoPanel.waitFor({ timeout: 60_000 }).catch(async (error: unknown) => {
      // What the page shows instead, and what the service said (CI failed here once, 2026-12-02).
      const shown = await page
        .locator('body')
        .innerText()
        .catch(() => '(no page)');
      throw new Error(
        `${String(error)}\n--- the page shows:\n${shown.slice(0, 2000)}\n--- its errors:\n${pageErrors.join('\n')}\n--- the service said:\n${service.output().slice(-4000)}`,
      );
    });
    await demoPanel.getByLabel('Example partner server address').fill(partnerUrl);
    const command = await until(
      'the demo campaign',
      async () => {
        await demoPanel.getByRole('button', { name: 'Start the demo' }).click();
        const ready = page.getByTestId('demo-command');
        const shown = await ready
          .waitFor({ timeout: 5_000 })
          .then(() => ready.textContent())
          .catch(() => undefined);
        return shown ?? undefined;
      },
      120_000,
    );
    // The command the console shows, run as written (its variables, then the example server).
    const vars = Object.fromEntries(
      [...command.matchAll(/([A-Z_]+)=('[^']*'|\S+)/g)].map((m) => [
        m[1],
        (m[2] as string).replace(/^'|'$/g, ''),
      ]),
    );
    expect(vars).toMatchObject({
      MRS_BASE_URL: serviceUrl,
      PORT: String(partnerPort),
      PUBLIC_URL: partnerUrl,
    });
    const partner = start(process.execPath, ['--import', 'tsx', 'examples/partner-server/server.ts'], {
      ...env,
      ...vars,
      HOST: '127.0.0.1',
    });
    await until(
      'the example partner server',
      () =>
        fetch(`${partnerUrl}/status?uid=alice`)
          .then((r) => (r.ok ? true : undefined))
          .catch(() => undefined),
      60_000,
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${partner.output()}`);
    });

    // 4. Link alice through the example partner: the development login, any name.
    await page.goto(`${partnerUrl}/link?uid=alice`);
    await page.getByLabel('User name').fill('alice');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${partnerUrl}/linked**`);
    expect(await (await fetch(`${partnerUrl}/status?uid=alice`)).json()).toEqual({ linked: true });

    // 5. The mission page: the development wallet.
    await page.goto(`${serviceUrl}/app`);
    await page.locator('[data-connector="dev-wallet"]').click();
    await page.getByTestId('wallet-address').waitFor({ timeout: 30_000 });

    // 6. The partner reports the completion.
    const progress = await fetch(`${partnerUrl}/progress`, {
      method: 'POST',
      body: JSON.stringify({ uid: 'alice', current: 10, target: 10 }),
    });
    expect(await progress.json()).toMatchObject({ completed: true });

    // 7. The token arrives: a SUCCEEDED claim with its transaction link on the page, the webhook.
    const txLink = await until(
      'a SUCCEEDED claim with its transaction',
      async () => {
        await page.goto(`${serviceUrl}/app`);
        const tx = page.getByTestId('claim-tx').first();
        const found = await tx
          .waitFor({ timeout: 3_000 })
          .then(() => tx.getAttribute('data-tx-hash'))
          .catch(() => null);
        // The transaction shows from its broadcast on; the claim succeeds once it is confirmed.
        const claim = (await page.locator('.claims li').first().textContent()) ?? '';
        return found && /succeeded/i.test(claim) ? found : undefined;
      },
      120_000,
    );
    expect(txLink).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await page.locator('.claims li').first().textContent()).toMatch(/succeeded/i);
    const events = await until(
      'the verified claim.succeeded webhook',
      async () => {
        const body = (await (await fetch(`${partnerUrl}/events`)).json()) as {
          events: Array<{ type: string }>;
        };
        return body.events.some((e) => e.type === 'claim.succeeded') ? body.events : undefined;
      },
      60_000,
    );
    expect(events.map((e) => e.type)).toContain('claim.succeeded');
    const elapsed = Date.now() - began;
    console.log(`first hour: a paid token ${Math.round(elapsed / 1000)} s after the service started`);
    expect(elapsed).toBeLessThan(FIVE_MINUTES);

    // 8. The operator funds the demo budget's reward wallet from the dev faucet (#31 item 14): the
    // console says so in words and resets the form.
    await page.goto(`${serviceUrl}/console/budgets`);
    await page.locator('a[href^="/console/budgets/bdg_"]').first().click();
    const mint = page.getByLabel(/Tokens to mint/);
    await mint.waitFor({ timeout: 30_000 });
    await mint.fill('7.25');
    await page.getByRole('button', { name: 'Fund wallet' }).click();
    await page.getByRole('status').filter({ hasText: 'Funded' }).waitFor({ timeout: 30_000 });
    expect(await mint.inputValue()).toBe('1000');
    await context.close();
  }, 600_000);
});
