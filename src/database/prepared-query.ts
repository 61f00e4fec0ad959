// Statements run on the pool directly, past TypeORM: the hot paths' statements, prepared once per
// connection under a fixed name, so PostgreSQL parses and plans them once instead of on every call
// (the resolution statements spend more time being parsed and planned than executed; inside a
// transaction the caller's manager runs them as plain statements, so they see its uncommitted
// rows); and a statement with planner settings of its own (queryWithLocalSettings).
import { DataSource, EntityManager } from 'typeorm';
import { escapeLiteral } from 'pg';
import type { Pool, QueryResult, QueryResultRow } from 'pg';

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

/** `value` as an SQL literal: NULL, a finite number, TRUE or FALSE, a string escaped by `pg`, or an array of them. */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error('An SQL literal needs a finite number');
    return String(value);
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'string') return escapeLiteral(value);
  if (Array.isArray(value)) return value.length === 0 ? "'{}'" : `ARRAY[${value.map(sqlLiteral).join(', ')}]`;
  throw new Error(`No SQL literal for a value of type ${typeof value}`);
}

/**
 * Runs one statement under planner settings that hold for it alone, in one round trip: a simple
 * query `SET LOCAL ...; <statement>`, which PostgreSQL runs as one implicit transaction (an error
 * rolls it back, nothing stays set). A simple query takes no parameters, so each `$n` of `text`
 * becomes the literal of `values[n - 1]` (sqlLiteral). Every placeholder of `text` must stand
 * where a literal may, with a cast wherever an empty array may come (`'{}'` takes its type from it).
 * On PGlite, served to many clients as one session, the statement and its settings stay one batch.
 */
export async function queryWithLocalSettings<R extends QueryResultRow>(
  db: DataSource,
  settings: string[],
  text: string,
  values: unknown[],
): Promise<R[]> {
  const statement = text.replace(/\$(\d+)/g, (_, n: string) => {
    const index = Number(n) - 1;
    if (index >= values.length) throw new Error(`No value for $${n}`);
    return sqlLiteral(values[index]);
  });
  const results = (await poolOf(db).query(
    [...settings.map((s) => `SET LOCAL ${s}`), statement].join(';\n'),
  )) as unknown as QueryResult<R> | Array<QueryResult<R>>;
  return Array.isArray(results) ? results[results.length - 1].rows : results.rows;
}
