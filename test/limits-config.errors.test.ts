// The configuration of limits, shedding and headers: sane defaults, and a bad value stops start-up
// naming its variable; production refuses an http:// public base URL.
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.ts';

const production = {
  NODE_ENV: 'production',
  SESSION_SECRET: 's'.repeat(32),
  LOGIN_OIDC_ISSUER: 'https://access.line.me',
  LOGIN_OIDC_CLIENT_ID: '1234567890',
  LOGIN_OIDC_CLIENT_SECRET: 'secret',
};

describe('limits configuration', () => {
  it('has defaults', () => {
    const config = loadConfig({});
    expect(config.rateLimits).toMatchObject({
      windowSeconds: 60,
      perAddress: 600,
      loginPerAddress: 3000,
      loginPerBrowser: 20,
      failedAuthPerAddress: 20,
      redisUrl: undefined,
      redisTimeoutMs: 200,
    });
    expect(config.loadShedding).toMatchObject({
      maxEventLoopDelayMs: 1000,
      queueMaxWaiting: 1024,
      queueMaxWaitMs: 2000,
      retryAfterSeconds: 1,
      maxConnections: 1024,
      maxLoopUtilizationPercent: 95,
    });
    expect(config.frameAncestors).toEqual(["'self'"]);
  });

  it.each([
    ['RATE_LIMIT_PER_ADDRESS', 'lots'],
    ['RATE_LIMIT_PER_PARTNER', '-1'],
    ['RATE_LIMIT_FAILED_AUTH_PER_ADDRESS', '1.5'],
    ['RATE_LIMIT_WINDOW_SECONDS', '0'],
    ['REDIS_URL', 'http://127.0.0.1:6379'],
    ['RATE_LIMIT_REDIS_PREFIX', 'has space'],
    ['QUEUE_MAX_WAITING', '0'],
    ['QUEUE_MAX_WAIT_MS', 'soon'],
    ['LOAD_SHED_MAX_EVENT_LOOP_DELAY_MS', '100000'],
    ['LOAD_SHED_MAX_HEAP_BYTES', '1e9'],
    ['LOAD_SHED_MAX_LOOP_UTILIZATION', '101'],
    ['LOAD_SHED_MAX_LOOP_UTILIZATION', '-1'],
    ['LOAD_SHED_MAX_LOOP_UTILIZATION', 'busy'],
    ['RETRY_AFTER_SECONDS', '0'],
    ['FRAME_ANCESTORS', 'evil.example'],
    ['FRAME_ANCESTORS', "'none' https://liff.line.me"],
    ['FRAME_ANCESTORS', 'javascript:alert(1)'],
  ])('%s=%s stops start-up naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });

  it('accepts origin lists for FRAME_ANCESTORS, separated by spaces or commas', () => {
    expect(
      loadConfig({ FRAME_ANCESTORS: "'self', https://liff.line.me https://*.line.me" }).frameAncestors,
    ).toEqual(["'self'", 'https://liff.line.me', 'https://*.line.me']);
  });

  it('production refuses an http:// PUBLIC_BASE_URL (and the default one), and takes https://', () => {
    expect(() => loadConfig(production)).toThrow(/PUBLIC_BASE_URL/);
    expect(() => loadConfig({ ...production, PUBLIC_BASE_URL: 'http://rewards.example' })).toThrow(
      /PUBLIC_BASE_URL must be an https/,
    );
    expect(loadConfig({ ...production, PUBLIC_BASE_URL: 'https://rewards.example' }).publicBaseUrl).toBe(
      'https://rewards.example',
    );
    // Development keeps http://localhost.
    expect(loadConfig({}).publicBaseUrl).toBe('http://localhost:8080');
  });
});
