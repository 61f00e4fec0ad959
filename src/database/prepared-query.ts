// Statements run on the pool directly, past TypeORM: the hot paths' statements, prepared once per
// connection under a fixed name, so PostgreSQL parses and plans them once instead of on every call
// (the resolution statements spend more time being parsed and planned than executed; inside a
// transaction the caller's manager runs them as plain statements, so they see its uncommitted
// rows); and a statement with planner settings of its own, its values bound as parameters, in one
// round trip (queryWithLocalSettings), parsed once per connection when it is given a name.
import { DataSource, EntityManager } from 'typeorm';
import * as pg from 'pg';
import type { Client, Connection, Pool, QueryResultRow } from 'pg';

/** The `pg` pool behind the data source (TypeORM's postgres driver keeps it as `master`). */
function poolOf(db: DataSource): Pool {
  return (db.driver as unknown as { master: Pool }).master;
}

export interface PreparedStatement {
  /** Unique per text: a connection keeps the first text it prepared under a name. */
  name: string;
  text: string;
}

export async function queryPrepared<R extends QueryResultRow>(
  db: DataSource,
  statement: PreparedStatement,
  values: unknown[],
  manager: EntityManager = db.manager,
): Promise<R[]> {
  if (manager !== db.manager) return manager.query<R[]>(statement.text, values);
  return (await poolOf(db).query<R>({ name: statement.name, text: statement.text, values })).rows;
}

/** What of `pg` the one-batch statement uses beyond its typings. */
interface PgInternals {
  utils: { prepareValue(value: unknown): unknown };
  Result: new (rowMode?: string) => RowsResult;
}

interface RowsResult {
  rows: QueryResultRow[];
  _types?: unknown;
  addFields(fields: unknown[]): void;
  parseRow(fields: unknown[]): QueryResultRow;
}

/** What a `pg` connection records of the named statements it prepared (as `pg`'s own queries do). */
interface NamedStatements {
  parsedStatements: Record<string, string>;
}

/**
 * `BEGIN`, `SET LOCAL` each setting, the statement with its values bound, `COMMIT`: one batch of
 * extended-protocol messages ending in one Sync, so one round trip; and on PGlite, served to many
 * clients as one session, one batch that no other client's messages interleave. A named statement
 * is parsed first in the batch, before `BEGIN`, and only on a connection that has not parsed it yet
 * (the embedded server answers a first Parse of a name its session holds, see
 * embedded-socket-server.ts). A `pg` custom query: the client hands it the server's answers and
 * wraps `callback` with its own read timeout.
 */
class WithLocalSettings {
  private readonly result: RowsResult;
  private settled = false;
  /** This batch parsed the named statement: if it fails, the connection may or may not hold it. */
  prepared = false;

  constructor(
    private readonly settings: string[],
    private readonly statement: PreparedStatement | string,
    private readonly values: unknown[],
    types: Pick<Client, 'getTypeParser'>,
    public callback: (err: Error | null, rows?: QueryResultRow[]) => void,
  ) {
    this.result = new (pg as unknown as PgInternals).Result();
    // The row parsers of the client the statement runs on, as pg's own queries use.
    this.result._types = types;
  }

  submit(connection: Connection): Error | undefined {
    let values: unknown[];
    try {
      values = this.values.map((v) => (pg as unknown as PgInternals).utils.prepareValue(v));
    } catch (err) {
      // Nothing is written yet: the client reports it as this query's error.
      return err as Error;
    }
    const plain = (text: string): void => {
      connection.parse({ name: '', text, types: [] }, true);
      connection.bind({}, true);
      connection.execute({}, true);
    };
    const { name, text } = typeof this.statement === 'string' ? { name: '', text: this.statement } : this.statement;
    const parsed = (connection as unknown as NamedStatements).parsedStatements;
    if (name && parsed[name] !== undefined && parsed[name] !== text) {
      return new Error(`the statement ${name} was prepared with another text`);
    }
    // One write: the batch leaves in as few packets as it fits.
    connection.stream.cork();
    if (name && parsed[name] === undefined) {
      connection.parse({ name, text, types: [] }, true);
      // Recorded now: a batch that fails leaves its connection dropped (queryWithLocalSettings).
      parsed[name] = text;
      this.prepared = true;
    }
    plain('BEGIN');
    for (const setting of this.settings) plain(`SET LOCAL ${setting}`);
    if (!name) connection.parse({ name: '', text, types: [] }, true);
    connection.bind({ statement: name, values: values as string[] }, true);
    connection.describe({ type: 'P', name: '' }, true);
    connection.execute({}, true);
    plain('COMMIT');
    connection.sync();
    connection.stream.uncork();
    return undefined;
  }

  handleRowDescription(msg: { fields: unknown[] }): void {
    this.result.addFields(msg.fields);
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    this.result.rows.push(this.result.parseRow(msg.fields));
  }

  handleCommandComplete(): void {}
  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyData(): void {}

  handleCopyInResponse(connection: Connection & { sendCopyFail(message: string): void }): void {
    connection.sendCopyFail('no COPY here');
  }

  /** The first error ends it: the server skips to the Sync, leaving the transaction to roll back. */
  handleError(err: Error): void {
    this.settle(err);
  }

  handleReadyForQuery(): void {
    this.settle(null);
  }

  private settle(err: Error | null): void {
    if (this.settled) return;
    this.settled = true;
    this.callback(err, err ? undefined : this.result.rows);
  }
}

/**
 * Runs one statement, its values bound as parameters, under planner settings that hold for it
 * alone, in one round trip (WithLocalSettings) on one connection of the pool. A statement that
 * fails is rolled back, so nothing stays set; a connection that cannot roll back is dropped, and so
 * is one whose batch prepared a named statement and failed (it may or may not hold the statement).
 * A named statement is parsed once per connection and planned on every call only when the settings
 * say so (`plan_cache_mode = force_custom_plan`).
 */
export async function queryWithLocalSettings<R extends QueryResultRow>(
  db: DataSource,
  settings: string[],
  statement: PreparedStatement | string,
  values: unknown[],
): Promise<R[]> {
  const client = await poolOf(db).connect();
  let broken: Error | undefined;
  let query: WithLocalSettings | undefined;
  try {
    return await new Promise<R[]>((resolve, reject) => {
      query = new WithLocalSettings(settings, statement, values, client, (err, rows) =>
        err ? reject(err) : resolve(rows as R[]),
      );
      client.query(query);
    });
  } catch (err) {
    await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
    if (query?.prepared) broken ??= err as Error;
    throw err;
  } finally {
    client.release(broken);
  }
}
