// The readable-scope filter of CONTRACT §2 in SQL, shared by the skill list and search so both show
// exactly the skills the reader may read: public ones, their personal ones, and their groups' ones.

/**
 * `alias` names a row with `is_public`, `namespace` and `owner_user_id`; `reader` and `groups` are
 * the placeholders of the reader's user id and of the text array of readable group names.
 */
export function readableScopeSql(alias: string, reader: string, groups: string): string {
  return `(${alias}.is_public OR (${alias}.namespace = 'default' AND ${alias}.owner_user_id = ${reader}) OR ${alias}.namespace = ANY(${groups}))`;
}
