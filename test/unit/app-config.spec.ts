// The docs/configuration.md settings of the environment: their defaults, and values refused at boot.
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

describe('the bounds of tool-check (docs/tool-policy.md#budget)', () => {
  it('default to 64 skills of 16 patterns, each two scans of 16 KiB, and 4,096 compiled versions', () => {
    expect(loadConfig({}).toolPolicy).toEqual({ matchBudget: 2 * 64 * 16 * (16 * 1024 + 1), cacheEntries: 4_096 });
  });

  it('take a larger budget and a cache turned off', () => {
    const config = loadConfig({ TOOL_CHECK_MATCH_BUDGET: '100000000', TOOL_POLICY_CACHE_ENTRIES: '0' });
    expect(config.toolPolicy).toEqual({ matchBudget: 100_000_000, cacheEntries: 0 });
  });

  it.each([
    [{ TOOL_CHECK_MATCH_BUDGET: '1000' }, 'TOOL_CHECK_MATCH_BUDGET must be an integer from 16778240'],
    [{ TOOL_CHECK_MATCH_BUDGET: 'lots' }, 'TOOL_CHECK_MATCH_BUDGET must be an integer'],
    [
      { TOOL_CHECK_MATCH_BUDGET: String(2 ** 31) },
      'TOOL_CHECK_MATCH_BUDGET must be an integer from 16778240 to 1073741824',
    ],
    [{ TOOL_POLICY_CACHE_ENTRIES: '-1' }, 'TOOL_POLICY_CACHE_ENTRIES must be an integer from 0'],
  ])('%j is refused at boot', (env, message) => {
    expect(() => loadConfig(env)).toThrow(message);
  });
});

describe('WELL_KNOWN_INDEX (docs/well-known.md)', () => {
  it.each<[Record<string, string>, string]>([
    [{}, 'off'],
    [{ WELL_KNOWN_INDEX: '' }, 'off'],
    [{ WELL_KNOWN_INDEX: 'off' }, 'off'],
    [{ WELL_KNOWN_INDEX: 'public' }, 'public'],
  ])('%j is %s', (env, mode) => {
    expect(loadConfig(env).wellKnownIndex).toBe(mode);
  });

  it.each(['on', 'PUBLIC', 'true', 'private'])('"%s" is refused at boot', (value) => {
    expect(() => loadConfig({ WELL_KNOWN_INDEX: value })).toThrow(
      `WELL_KNOWN_INDEX must be one of off, public (got "${value}")`,
    );
  });
});
