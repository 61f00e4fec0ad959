// The §11 settings of the environment: their defaults, and values refused at boot.
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { connectionsCheckingInterval } from '../../src/common/http/http-limits';

describe('HTTP limits, the failed-authentication limit and TRUST_PROXY', () => {
  it('default to the contract: 15 s headers, 120 s request, 5 s keep-alive, 1,000 connections, 30 failures a minute', () => {
    const config = loadConfig({});
    expect(config.http).toEqual({
      headersTimeoutMs: 15_000,
      requestTimeoutMs: 120_000,
      keepAliveTimeoutMs: 5_000,
      maxConnections: 1_000,
    });
    expect({ limit: config.authFailureLimit, window: config.authFailureWindowSeconds }).toEqual({
      limit: 30,
      window: 60,
    });
    expect(config.trustProxy).toBe(0);
    // Node looks for late requests every second, not every 30 s.
    expect(connectionsCheckingInterval(config.http)).toBe(1_000);
  });

  it.each([
    [{ HTTP_HEADERS_TIMEOUT_MS: '0' }, 'HTTP_HEADERS_TIMEOUT_MS must be an integer from 100'],
    [
      { HTTP_REQUEST_TIMEOUT_MS: '1000', HTTP_HEADERS_TIMEOUT_MS: '2000' },
      'must not be greater than HTTP_REQUEST_TIMEOUT_MS',
    ],
    [{ HTTP_KEEP_ALIVE_TIMEOUT_MS: 'soon' }, 'HTTP_KEEP_ALIVE_TIMEOUT_MS must be an integer'],
    [{ HTTP_MAX_CONNECTIONS: '0' }, 'HTTP_MAX_CONNECTIONS must be an integer from 1'],
    [{ AUTH_FAILURE_LIMIT: '-1' }, 'AUTH_FAILURE_LIMIT must be an integer'],
    [{ TRUST_PROXY: 'true' }, 'TRUST_PROXY must be an integer from 0 to 10'],
  ])('%j is refused', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('accepts short limits (as the tests use) and turning the failure limit off', () => {
    const config = loadConfig({
      HTTP_HEADERS_TIMEOUT_MS: '600',
      HTTP_REQUEST_TIMEOUT_MS: '1500',
      AUTH_FAILURE_LIMIT: '0',
      TRUST_PROXY: '2',
    });
    expect(config.http.headersTimeoutMs).toBe(600);
    expect(connectionsCheckingInterval(config.http)).toBe(60);
    expect(config.authFailureLimit).toBe(0);
    expect(config.trustProxy).toBe(2);
  });
});
