// Serves the built web pages (web/dist, made by `npm run build:web`): the mission page under /app
// and the operator console under /console, each a single-page app whose deep links fall back to its
// index.html, and their hashed assets under /assets/. Nothing here reads the database.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

/** The two single-page apps and the HTML file each falls back to. */
const PAGES = [
  { prefix: '/app', index: 'app/index.html' },
  { prefix: '/console', index: 'console/index.html' },
] as const;

// Their security headers (CSP, framing: /app by FRAME_ANCESTORS, /console never) come from
// src/http/security-headers.ts.

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
    app.log.warn(
      { distDir },
      'web pages not built: /app and /console answer 503 until `npm run build:web` runs',
    );
  }

  for (const page of PAGES) {
    const handler = async (_request: unknown, reply: FastifyReply) => {
      reply.header('cache-control', 'no-cache');
      if (!built) return reply.code(503).type('text/html; charset=utf-8').send(NOT_BUILT);
      // The page itself must be revalidated: it names the current hashed assets.
      return reply.sendFile(page.index, distDir, { cacheControl: false });
    };
    const route = { schema: { hide: true } };
    app.get(page.prefix, route, handler);
    app.get(`${page.prefix}/*`, route, handler);
  }
}
