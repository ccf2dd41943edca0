// Serves the built web pages (web/dist, made by `npm run build:web`): the mission page under /app
// and the operator console under /console, each a single-page app whose deep links fall back to its
// index.html, and their hashed assets under /assets/. Nothing here reads the database.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

/** The two single-page apps and the HTML file each falls back to. */
const PAGES = [
  { prefix: '/app', index: 'app/index.html', framing: true },
  { prefix: '/console', index: 'console/index.html', framing: false },
] as const;

// Scripts, styles and API calls only from this origin. The console may not be framed (click-jacking
// of an operator); the mission page may, since messaging apps show partner pages in web views.
function securityHeaders(reply: FastifyReply, framing: boolean): FastifyReply {
  const csp = [
    "default-src 'self'",
    "img-src 'self' data:",
    "style-src 'self'",
    "script-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    ...(framing ? [] : ["frame-ancestors 'none'"]),
  ].join('; ');
  reply.header('content-security-policy', csp).header('x-content-type-options', 'nosniff').header('referrer-policy', 'same-origin');
  if (!framing) reply.header('x-frame-options', 'DENY');
  return reply;
}

const NOT_BUILT = `<!doctype html><html lang="en"><meta charset="utf-8"><title>Web pages not built</title>
<body style="font:16px system-ui;margin:2rem"><h1>The web pages are not built</h1>
<p>Run <code>npm run build:web</code> (it also runs on <code>npm install</code>), then reload.</p></body></html>`;

export async function webPages(app: FastifyInstance, options: { distDir: string }): Promise<void> {
  const distDir = path.resolve(options.distDir);
  const built = existsSync(path.join(distDir, 'app', 'index.html'));
  if (built) {
    await app.register(fastifyStatic, {
      root: path.join(distDir, 'assets'),
      prefix: '/assets/',
      // File names carry a content hash, so a browser may keep them for good.
      immutable: true,
      maxAge: '365d',
      index: false,
    });
  } else {
    app.log.warn({ distDir }, 'web pages not built: /app and /console answer 503 until `npm run build:web` runs');
  }

  for (const page of PAGES) {
    const handler = async (_request: unknown, reply: FastifyReply) => {
      securityHeaders(reply, page.framing).header('cache-control', 'no-cache');
      if (!built) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      // The page itself must be revalidated: it names the current hashed assets.
      return reply.sendFile(page.index, distDir, { cacheControl: false });
    };
    const route = { schema: { hide: true } };
    app.get(page.prefix, route, handler);
    app.get(`${page.prefix}/*`, route, handler);
  }
}
