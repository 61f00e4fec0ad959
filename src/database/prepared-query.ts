// Statements the hot paths run on every request, prepared once per connection under a fixed name:
// PostgreSQL then parses and plans them once instead of on every call (the resolution statements
// spend more time being parsed and planned than executed). Inside a transaction the caller's
// manager runs them as plain statements, so they see its uncommitted rows.
import { DataSource, EntityManager } from 'typeorm';
import type { Pool, QueryResultRow } from 'pg';

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
  const pool = (db.driver as unknown as { master: Pool }).master;
  return (await pool.query<R>({ name: statement.name, text: statement.text, values })).rows;
}
