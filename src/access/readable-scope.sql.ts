// "Readable by" in SQL: the rows a reader may read, as one WHERE term, so every list and search
// shows exactly what the read rule allows one row at a time. Admins read everything: callers
// leave the term out for them.
import { DEFAULT_NAMESPACE } from './namespaces';

/**
 * - `skills`: public rows, the reader's personal rows, rows of their readable groups;
 * - `resources` (ghosts, bots, teams, subscriptions: no `is_public` column): personal and group rows;
 * - `tasks`: the reader's own tasks in any namespace, and those of their readable groups.
 */
export type ReadableRows = 'skills' | 'resources' | 'tasks';

export interface ReadableScopeOptions {
  rows?: ReadableRows;
  /**
   * How `groups` holds the readable group names: one text[] parameter (`= ANY(...)`, the default)
   * or an expanded list (`IN (...)`, e.g. TypeORM's `:...groups`).
   */
  groupList?: boolean;
}

/**
 * `alias` names the row (`namespace`, `owner_user_id`, and for skills `is_public`); `reader` is the
 * placeholder of the reader's user id and `groups` that of their readable group names, or null
 * when they read no group (the group term is then left out).
 */
export function readableScopeSql(
  alias: string,
  reader: string,
  groups: string | null,
  options: ReadableScopeOptions = {},
): string {
  const rows = options.rows ?? 'skills';
  const terms: string[] = [];
  if (rows === 'skills') terms.push(`${alias}.is_public`);
  terms.push(
    rows === 'tasks'
      ? `${alias}.owner_user_id = ${reader}`
      : `(${alias}.namespace = '${DEFAULT_NAMESPACE}' AND ${alias}.owner_user_id = ${reader})`,
  );
  if (groups !== null) {
    terms.push(options.groupList ? `${alias}.namespace IN (${groups})` : `${alias}.namespace = ANY(${groups})`);
  }
  return terms.length === 1 ? terms[0] : `(${terms.join(' OR ')})`;
}
