import { QueryFailedError } from 'typeorm';
import { ConfigError, loadConfig } from '../../src/config/app-config';
import { isDatabaseUnavailable } from '../../src/common/errors/pg-errors';
import { buildDataSourceOptions } from '../../src/schema/typeorm-options';

describe('database time limits (docs/operations.md#when-the-database-does-not-answer)', () => {
  it('default to connect 5 s, statement 15 s, pool acquire 5 s', () => {
    expect(loadConfig({}).dbLimits).toEqual({ connectMs: 5_000, statementMs: 15_000, acquireMs: 5_000 });
  });

  it('are configurable, and a wrong value stops the boot naming the variable', () => {
    expect(
      loadConfig({ DB_CONNECT_TIMEOUT_MS: '1000', DB_STATEMENT_TIMEOUT_MS: '2500', DB_ACQUIRE_TIMEOUT_MS: '700' })
        .dbLimits,
    ).toEqual({ connectMs: 1_000, statementMs: 2_500, acquireMs: 700 });
    for (const name of ['DB_CONNECT_TIMEOUT_MS', 'DB_STATEMENT_TIMEOUT_MS', 'DB_ACQUIRE_TIMEOUT_MS']) {
      for (const bad of ['0', '5s', '-1']) {
        expect(() => loadConfig({ [name]: bad })).toThrow(ConfigError);
        expect(() => loadConfig({ [name]: bad })).toThrow(name);
      }
    }
  });

  it("reach the pool as pg's options: acquire, server and client statement limits, a client that connects within its limit", () => {
    const { extra } = buildDataSourceOptions({ url: 'postgres://db/x', limits: loadConfig({}).dbLimits }) as {
      extra: Record<string, unknown>;
    };
    expect(extra).toEqual(
      expect.objectContaining({
        max: 10,
        connectionTimeoutMillis: 5_000,
        statement_timeout: 15_000,
        query_timeout: 15_000,
        keepAlive: true,
        // Idle connections stay 5 minutes (pg's default, 10 s, emptied the pool at every pause).
        idleTimeoutMillis: 300_000,
      }),
    );
    const Client = extra.Client as new (config: object) => { connectionParameters: unknown };
    const client = new Client({ connectionString: 'postgres://db/x', connectionTimeoutMillis: 5_000 }) as unknown as {
      _connectionTimeoutMillis: number;
    };
    expect(client._connectionTimeoutMillis).toBe(5_000);
    const short = buildDataSourceOptions({
      url: 'postgres://db/x',
      limits: { connectMs: 300, statementMs: 900, acquireMs: 400 },
    }) as { extra: Record<string, unknown> };
    const ShortClient = short.extra.Client as new (config: object) => { _connectionTimeoutMillis: number };
    // The pool's own wait is the acquire limit; each connection attempt has the connect limit.
    expect(short.extra.connectionTimeoutMillis).toBe(400);
    expect(new ShortClient({ connectionTimeoutMillis: 400 })._connectionTimeoutMillis).toBe(300);
  });

  it('are not applied to migrations (the CLI and the boot), which may run long', () => {
    const { extra } = buildDataSourceOptions({ url: 'postgres://db/x', poolSize: 2 }) as {
      extra: Record<string, unknown>;
    };
    expect(extra).toEqual({ max: 2, application_name: 'skill-resolver' });
  });
});

function systemError(code: string, syscall = 'connect'): Error {
  return Object.assign(new Error(`${syscall} ${code} 127.0.0.1:5432`), { code, syscall });
}

function pgError(code: string, message = 'error'): Error {
  return Object.assign(new Error(message), { code, severity: 'ERROR' });
}

describe('isDatabaseUnavailable: what is 503 DATABASE_UNAVAILABLE and what is not', () => {
  it.each<[string, boolean, unknown]>([
    ['a query that outlived the client limit', true, new Error('Query read timeout')],
    ['no pool connection within the acquire limit', true, new Error('timeout exceeded when trying to connect')],
    [
      'a connection not opened within the connect limit',
      true,
      new Error('Connection terminated due to connection timeout'),
    ],
    ['a connection lost mid-query', true, new Error('Connection terminated unexpectedly')],
    ['the server refusing connections', true, systemError('ECONNREFUSED')],
    ['the connection reset', true, systemError('ECONNRESET', 'read')],
    ['an unknown host', true, systemError('ENOTFOUND', 'getaddrinfo')],
    ['every address refusing', true, new AggregateError([systemError('ECONNREFUSED')], 'connect failed')],
    ['the server statement limit', true, pgError('57014', 'canceling statement due to statement timeout')],
    ['the server shutting down', true, pgError('57P01', 'terminating connection due to administrator command')],
    ['the server starting up', true, pgError('57P03', 'the database system is starting up')],
    ['too many connections', true, pgError('53300')],
    ['a connection failure', true, pgError('08006')],
    ['wrapped by TypeORM', true, new QueryFailedError('SELECT 1', [], new Error('Query read timeout'))],
    ['a unique violation', false, pgError('23505')],
    ['a constraint of the schema', false, new QueryFailedError('INSERT', [], pgError('23503'))],
    ['invalid text for the database', false, pgError('22021')],
    [
      'a reset of the caller’s own request (no syscall)',
      false,
      Object.assign(new Error('aborted'), { code: 'ECONNRESET' }),
    ],
    ['a body the caller aborted', false, Object.assign(new Error('request aborted'), { code: 'ECONNABORTED' })],
    ['a plain bug', false, new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['not an error', false, 'Query read timeout'],
    ['nothing', false, undefined],
  ])('%s: %s', (_, expected, err) => {
    expect(isDatabaseUnavailable(err)).toBe(expected);
  });
});
