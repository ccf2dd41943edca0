// What a partner gets: `npm pack` of the SDK installs into an empty folder, and the example partner
// server, copied there, type-checks against the installed package and runs against a started
// service: it links a user through the login, reports a completion, and verifies a webhook.
import { execFile, spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestBrowser } from './login-helpers.ts';
import {
  createSdkPartner,
  freePort,
  loginThroughBrowser,
  startListeningService,
} from './partner-sdk/service.ts';
import type { ListeningService, SdkPartner } from './partner-sdk/service.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const EXAMPLE = join(ROOT, 'examples/partner-server');
const WEBHOOK_SECRET = `whsec_${Buffer.from('example-partner-webhook-secret!!').toString('base64')}`;

let folder: string;
let service: ListeningService;
let partner: SdkPartner;
let example: ChildProcess | undefined;
let exampleUrl: string;

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'partner-sdk-pack-'));
}, 60_000);
afterAll(async () => {
  example?.kill('SIGTERM');
  await service?.close();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('the packed SDK and the example partner server', () => {
  it('npm pack installs into an empty folder with the example', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', folder], {
      cwd: join(ROOT, 'packages/partner-sdk'),
    });
    const [{ filename, files }] = JSON.parse(packed.stdout) as [
      { filename: string; files: { path: string }[] },
    ];
    const paths = files.map((f) => f.path);
    expect(paths).toEqual(
      expect.arrayContaining(['dist/index.js', 'dist/index.d.ts', 'README.md', 'package.json']),
    );
    // Only what a partner needs: no sources of the service, no tests.
    expect(paths.every((p) => /^(dist\/|README\.md$|package\.json$)/.test(p))).toBe(true);

    const app = join(folder, 'app');
    await run('mkdir', ['-p', app]);
    for (const file of ['server.ts', 'tsconfig.json']) await copyFile(join(EXAMPLE, file), join(app, file));
    const manifest = JSON.parse(await readFile(join(EXAMPLE, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    manifest.dependencies['@mission-rewards/partner-sdk'] = `file:${join(folder, filename)}`;
    await writeFile(join(app, 'package.json'), JSON.stringify(manifest, null, 2));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
      cwd: app,
    });
    const installed = JSON.parse(
      await readFile(join(app, 'node_modules/@mission-rewards/partner-sdk/package.json'), 'utf8'),
    ) as { name: string };
    expect(installed.name).toBe('@mission-rewards/partner-sdk');
  }, 300_000);

  it('the example type-checks against the installed package', async () => {
    const app = join(folder, 'app');
    // tsc exits non-zero (and execFile rejects) on any type error.
    const checked = await run(join(app, 'node_modules/.bin/tsc'), ['--noEmit', '-p', app], { cwd: app });
    expect(checked.stdout).toBe('');
  }, 120_000);

  it('the example links a user, reports a completion and verifies webhooks against a started service', async () => {
    const app = join(folder, 'app');
    const port = await freePort();
    exampleUrl = `http://127.0.0.1:${port}`;
    service = await startListeningService();
    partner = await createSdkPartner(service.ctx, `${exampleUrl}/linked`);

    example = spawn(join(app, 'node_modules/.bin/tsx'), ['server.ts'], {
      cwd: app,
      env: {
        ...process.env,
        PORT: String(port),
        PUBLIC_URL: exampleUrl,
        MRS_BASE_URL: service.baseUrl,
        MRS_PARTNER_ID: partner.partnerId,
        MRS_API_KEY: partner.apiKey,
        MRS_WEBHOOK_SECRET: WEBHOOK_SECRET,
        MISSION_KEY: partner.missionKey,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    example.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      example?.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('example partner server on')) resolve();
      });
      example?.once('exit', (code) => reject(new Error(`the example exited ${code}: ${output}`)));
      example?.once('error', reject);
    });

    // Linking: the example sends the browser to our login and connects with the token it brings back.
    const landed = await loginThroughBrowser(
      service.ctx,
      `${exampleUrl}/link?uid=alice`,
      'alice',
      new URL(exampleUrl).origin,
    );
    const linkedPage = await new TestBrowser(service.ctx, 'http://inject.invalid').request('GET', landed);
    expect(linkedPage.status, output).toBe(200);
    expect(linkedPage.body).toContain('Linked alice');
    expect(await (await fetch(`${exampleUrl}/status?uid=alice`)).json()).toEqual({ linked: true });

    // Progress, then the completion, reported through the SDK.
    for (const current of [4, 10]) {
      const reported = await fetch(`${exampleUrl}/progress`, {
        method: 'POST',
        body: JSON.stringify({ uid: 'alice', current, target: 10 }),
      });
      expect(reported.status, output).toBe(200);
    }
    const progress = await service.ctx.admin(
      'GET',
      `/admin/v1/partners/${partner.partnerId}/users/alice/progress`,
    );
    expect(progress.json().items).toMatchObject([
      { missionKey: partner.missionKey, completed: true, current: 10 },
    ]);

    // A webhook signed with the secret is accepted once; a tampered one is refused.
    const body = JSON.stringify({
      type: 'mission.completed',
      timestamp: new Date().toISOString(),
      data: { partnerUid: 'alice', missionKey: partner.missionKey },
    });
    const now = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': 'msg_example_1',
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(WEBHOOK_SECRET).sign('msg_example_1', now, body),
    };
    const delivered = await fetch(`${exampleUrl}/webhooks`, { method: 'POST', headers, body });
    expect(delivered.status, output).toBe(204);
    const tampered = await fetch(`${exampleUrl}/webhooks`, {
      method: 'POST',
      headers,
      body: body.replace('alice', 'mallory'),
    });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toEqual({ error: 'INVALID_SIGNATURE' });
    const events = (await (await fetch(`${exampleUrl}/events`)).json()) as { events: unknown[] };
    expect(events.events).toEqual([
      expect.objectContaining({ type: 'mission.completed', webhookId: 'msg_example_1' }),
    ]);
  }, 180_000);
});
