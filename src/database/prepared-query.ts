// Statements run on the pool directly, past TypeORM: the hot paths' statements, prepared once per
// connection under a fixed name, so PostgreSQL parses and plans them once instead of on every call
// (the resolution statements spend more time being parsed and planned than executed; inside a
// transaction the caller's manager runs them as plain statements, so they see its uncommitted
// rows); and a statement with planner settings of its own (queryWithLocalSettings).
import { DataSource, EntityManager } from 'typeorm';
import type { Pool, QueryResultRow } from 'pg';

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

/**
 * Runs one statement, its values bound as parameters, under planner settings that hold for it
 * alone: `BEGIN; SET LOCAL ...` as one simple query, the statement, then COMMIT, on one connection
 * of the pool (an error rolls back, so nothing stays set). On PGlite, served to many clients as one
 * session, the open transaction keeps other clients' statements out until it ends.
 */
export async function queryWithLocalSettings<R extends QueryResultRow>(
  db: DataSource,
  settings: string[],
  text: string,
  values: unknown[],
): Promise<R[]> {
  const client = await poolOf(db).connect();
  let broken: Error | undefined;
  try {
    await client.query(['BEGIN', ...settings.map((s) => `SET LOCAL ${s}`)].join('; '));
    const { rows } = await client.query<R>(text, values);
    await client.query('COMMIT');
    return rows;
  } catch (err) {
    await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
    throw err;
  } finally {
    // A connection that cannot roll back is dropped, not handed to the next caller mid-transaction.
    client.release(broken);
  }
}
