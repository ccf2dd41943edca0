// An example partner server: it links its users to the Mission Reward platform, reports their
// progress, and receives the service's webhooks, all through @mission-rewards/partner-sdk.
//
//   GET  /link?uid=alice      sends the browser to the platform's login (the SDK's auth URL)
//   GET  /linked?link=...     where the browser comes back with a token: connect, then a page
//   GET  /status?uid=alice    {"linked": true|false}
//   POST /progress            {"uid": "alice", "current": 3, "target": 10}: achieve (completed at the target)
//   POST /webhooks            a delivery of the service, verified with the webhook secret
//   GET  /events              the events received so far (for a demo; a real server stores them)
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createPartnerClient,
  PartnerApiError,
  readLinkCallback,
  verifyWebhook,
  WebhookVerificationError,
} from '@mission-rewards/partner-sdk';
import type { WebhookEvent } from '@mission-rewards/partner-sdk';

function required(name: string): string {
  const value = process.env[name];
  if (value === undefined || value === '') {
    console.error(`set ${name} (see README.md)`);
    process.exit(1);
  }
  return value;
}

const port = Number(process.env.PORT ?? 3000);
// Unset: every interface (as Node's default); 127.0.0.1 keeps it to this machine.
const host = process.env.HOST || undefined;
const publicUrl = (process.env.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
const missionKey = process.env.MISSION_KEY ?? 'daily-login';
const region = process.env.REGION ?? 'KR';
// The whsec_… secret the service showed once when the webhook endpoint was created (the console's
// partner page, POST /admin/v1/partners/{id}/webhook-endpoints, or `npm run demo`'s output).
const webhookSecret = process.env.MRS_WEBHOOK_SECRET;

const rewards = createPartnerClient({
  baseUrl: process.env.MRS_BASE_URL ?? 'http://localhost:8080',
  partnerId: required('MRS_PARTNER_ID'),
  apiKey: required('MRS_API_KEY'),
});

// Which of our users started which login. A real server keeps this in the user's session; the key
// travels in the redirect URL's query, so a browser cannot pick another user's uid.
const pendingLinks = new Map<string, string>();
const events: WebhookEvent[] = [];
const seenDeliveries = new Set<string>();

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function page(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
  const escaped = text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  res.end(`<!doctype html><title>Example partner</title><p>${escaped}</p>`);
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', publicUrl);
  const uid = url.searchParams.get('uid');

  if (req.method === 'GET' && url.pathname === '/link' && uid) {
    const link = randomBytes(16).toString('hex');
    pendingLinks.set(link, uid);
    const redirectUrl = `${publicUrl}/linked?link=${link}`;
    res.writeHead(302, { location: rewards.authUrl({ redirectUrl, browserType: 'WEB' }) });
    return void res.end();
  }

  if (req.method === 'GET' && url.pathname === '/linked') {
    const link = url.searchParams.get('link') ?? '';
    const partnerUid = pendingLinks.get(link);
    if (partnerUid === undefined)
      return page(res, 400, 'This link was not started here, or was used already.');
    pendingLinks.delete(link);
    const callback = readLinkCallback(url);
    if (!callback.ok) return page(res, 400, `The login did not finish: ${callback.error}.`);
    await rewards.connect({ token: callback.token, partnerUid, region });
    return page(res, 200, `Linked ${partnerUid} to the reward platform.`);
  }

  if (req.method === 'GET' && url.pathname === '/status' && uid) {
    return send(res, 200, { linked: await rewards.isLinked(uid) });
  }

  if (req.method === 'POST' && url.pathname === '/progress') {
    const body = JSON.parse((await readBody(req)).toString() || '{}') as {
      uid?: string;
      current?: number;
      target?: number;
    };
    if (typeof body.uid !== 'string' || typeof body.current !== 'number' || typeof body.target !== 'number')
      return send(res, 400, { error: 'send {"uid": string, "current": number, "target": number}' });
    const completed = body.current >= body.target;
    await rewards.achieve({
      partnerUid: body.uid,
      missionKey,
      completed,
      metadata: { current: body.current, target: body.target },
    });
    return send(res, 200, { reported: true, completed });
  }

  if (req.method === 'POST' && url.pathname === '/webhooks') {
    if (webhookSecret === undefined) return send(res, 503, { error: 'MRS_WEBHOOK_SECRET is not set' });
    // Verify the body exactly as it came, before parsing it.
    const event = verifyWebhook(webhookSecret, await readBody(req), req.headers);
    // A delivery may come more than once (retries): its webhook-id tells.
    if (!seenDeliveries.has(event.webhookId)) {
      seenDeliveries.add(event.webhookId);
      events.push(event);
      switch (event.type) {
        case 'mission.completed':
          console.log('mission completed', event.data);
          break;
        case 'claim.succeeded':
          console.log('reward paid', event.data);
          break;
        default:
          console.log('event', event.type);
      }
    }
    res.writeHead(204);
    return void res.end();
  }

  if (req.method === 'GET' && url.pathname === '/events') return send(res, 200, { events });

  send(res, 404, { error: 'not found' });
}

const server = createServer((req, res) => {
  handle(req, res).catch((error: unknown) => {
    if (error instanceof WebhookVerificationError) return send(res, 400, { error: error.reason });
    if (error instanceof PartnerApiError) {
      // Our errors have a catalog name to switch on and a request id to quote.
      console.error(`reward service: ${error.name} (${error.code}) ${error.message} [${error.requestId}]`);
      return send(res, 502, { error: error.name, code: error.code, requestId: error.requestId });
    }
    console.error(error);
    send(res, 500, { error: 'internal error' });
  });
});

server.listen(port, host, () =>
  console.log(`example partner server on ${publicUrl}${host ? ` (listening on ${host}:${port})` : ''}`),
);
