// The one "readable by" SQL term, in the exact text each list and search has always run: the
// statements' text, and so their plans, stay what they were.
import { readableScopeSql } from '../../src/access';

describe('readableScopeSql', () => {
  it.each<[string, string]>([
    [
      readableScopeSql('s', ':reader', ':groups'),
      `(s.is_public OR (s.namespace = 'default' AND s.owner_user_id = :reader) OR s.namespace = ANY(:groups))`,
    ],
    [
      readableScopeSql('s', '$9', '$10'),
      `(s.is_public OR (s.namespace = 'default' AND s.owner_user_id = $9) OR s.namespace = ANY($10))`,
    ],
    [
      readableScopeSql('r', ':reader', ':...groups', { rows: 'resources', groupList: true }),
      `((r.namespace = 'default' AND r.owner_user_id = :reader) OR r.namespace IN (:...groups))`,
    ],
    [
      readableScopeSql('r', ':reader', null, { rows: 'resources', groupList: true }),
      `(r.namespace = 'default' AND r.owner_user_id = :reader)`,
    ],
    [
      readableScopeSql('t', ':reader', ':...groups', { rows: 'tasks', groupList: true }),
      `(t.owner_user_id = :reader OR t.namespace IN (:...groups))`,
    ],
    [readableScopeSql('t', ':reader', null, { rows: 'tasks', groupList: true }), `t.owner_user_id = :reader`],
    [readableScopeSql('s', '$1', null), `(s.is_public OR (s.namespace = 'default' AND s.owner_user_id = $1))`],
  ])('%s', (sql, expected) => {
    expect(sql).toBe(expected);
  });
});
