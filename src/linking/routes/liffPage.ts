// GET /v1/mission-users/auth/liff: the LIFF entry page (the LIFF endpoint URL).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { liffNotConfigured } from '../../error-factories.ts';
import { liffPage } from '../../http/pages.ts';
import { LIFF_PATH } from '../service.ts';
import { browser } from './login-journey.ts';

export const liffPageRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { config } = app.deps;
  app.get(
    LIFF_PATH.slice('/v1'.length),
    {
      config: browser,
      schema: {
        operationId: 'liffPage',
        tags: ['login'],
        summary: 'LIFF entry page (register it as the LIFF endpoint URL)',
        hide: false,
      },
    },
    async (_request, reply) => {
      if (config.login.liffId === undefined) throw liffNotConfigured();
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(liffPage(config.login.liffId, LIFF_PATH));
    },
  );
};
