// GET /docs/errors: the error catalog (src/errors.ts) as JSON, or as an HTML table to a browser.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { ERRORS } from '../errors.ts';
import type { ErrorName } from '../errors.ts';
import { ERROR_CATALOG_PATH } from './openapi.ts';

const Entry = Type.Object({
  code: Type.Integer({ examples: [1201] }),
  name: Type.String({ examples: ['NOT_FOUND_MISSION'] }),
  status: Type.Integer({ description: 'The HTTP status', examples: [404] }),
  category: Type.String({ examples: ['Mission'] }),
  description: Type.String({ description: 'What happened and what the caller should do' }),
});

/** Every catalog entry, by code. */
export function errorCatalog() {
  return (Object.keys(ERRORS) as ErrorName[])
    .map((name) => ({ code: ERRORS[name].code, name, ...pick(name) }))
    .sort((a, b) => a.code - b.code);
}
const pick = (name: ErrorName) => ({
  status: ERRORS[name].status,
  category: ERRORS[name].category,
  description: ERRORS[name].description,
});

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function catalogPage(items: ReturnType<typeof errorCatalog>): string {
  const rows = items
    .map(
      (e) =>
        `<tr><td>${e.code}</td><td><code>${e.name}</code></td><td>${e.status}</td>` +
        `<td>${escapeHtml(e.category)}</td><td>${escapeHtml(e.description)}</td></tr>`,
    )
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Error codes</title></head>
<body><h1>Error codes</h1><p>Every error answer has the body {code, name, message}.</p>
<table><thead><tr><th>Code</th><th>Name</th><th>HTTP</th><th>Category</th><th>Meaning</th></tr></thead>
<tbody>
${rows}
</tbody></table></body></html>`;
}

export const errorCatalogRoute: FastifyPluginAsync = async (app) => {
  app.get(
    ERROR_CATALOG_PATH,
    {
      schema: {
        operationId: 'listErrors',
        tags: ['operations'],
        summary:
          'The error catalog: every code the service can answer, with its name, HTTP status and meaning',
        description:
          'Every error answer of this service has the body {code, name, message}; this lists each code. ' +
          'A browser asking for text/html gets the same table as a page.',
        response: {
          200: Type.Object(
            { items: Type.Array(Entry) },
            {
              examples: [
                { items: [{ code: 1201, name: 'NOT_FOUND_MISSION', ...pick('NOT_FOUND_MISSION') }] },
              ],
            },
          ),
        },
      },
    },
    async (request, reply) => {
      const items = errorCatalog();
      const accept = request.headers.accept ?? '';
      if (accept.includes('text/html') && !accept.startsWith('application/json'))
        return reply.type('text/html; charset=utf-8').send(catalogPage(items));
      return { items };
    },
  );
};
