// Skill URIs of the MCP Skills extension (docs/mcp-skills.md#uris): `skill://<scope>/<name>/<path>`,
// where the scope is ONE segment, `public`, `default` (the caller's personal skills) or a group
// path with `.` for `/` (`team-a.sub`), and the segment after it is the skill's name. So every
// URI has one reading, and no two files served share one. Listing and reading both go through
// this module. Plain functions, no I/O.
import { DEFAULT_NAMESPACE, groupNameProblems, isSkillName } from '../access';

export const SKILL_URI_PREFIX = 'skill://';
/**
 * The longest URI any method takes: a scope of 200 characters, a name of 64 and a manifest path
 * of at most 4,096 bytes, each byte percent-encoded at worst, fit well within it.
 */
export const MAX_SKILL_URI_LENGTH = 16_384;
export const PUBLIC_SCOPE = 'public';
/** What stands for `/` of a group path in its scope segment; group segments never hold one. */
export const GROUP_SEPARATOR = '.';

export type SkillScope = { kind: 'personal' } | { kind: 'public' } | { kind: 'group'; namespace: string };

/** The one reading of a URI: a skill in a scope and a path inside it (null: the skill's root folder). */
export interface SkillAddress {
  scope: SkillScope;
  name: string;
  path: string | null;
}

/** Where a stored skill lives, as its URI says it. */
export function scopeOf(skill: { namespace: string; isPublic: boolean }): SkillScope {
  if (skill.isPublic) return { kind: 'public' };
  if (skill.namespace === DEFAULT_NAMESPACE) return { kind: 'personal' };
  return { kind: 'group', namespace: skill.namespace };
}

/** The scope's one segment in a URI: `public`, `default` or the group path with `.` for `/`. */
export function scopeSegment(scope: SkillScope): string {
  switch (scope.kind) {
    case 'public':
      return PUBLIC_SCOPE;
    case 'personal':
      return DEFAULT_NAMESPACE;
    case 'group':
      return scope.namespace.split('/').join(GROUP_SEPARATOR);
  }
}

/** The scope a URI's first segment names, or null when no scope could be written so. */
export function scopeOfSegment(segment: string): SkillScope | null {
  if (segment === PUBLIC_SCOPE) return { kind: 'public' };
  if (segment === DEFAULT_NAMESPACE) return { kind: 'personal' };
  // A `/` in the segment would be a second segment; reserved or malformed group segments are
  // refused by the group rule (`public` and `default` among them, so no scope reads two ways).
  if (segment.includes('/')) return null;
  const namespace = segment.split(GROUP_SEPARATOR).join('/');
  return groupNameProblems(namespace).length ? null : { kind: 'group', namespace };
}

/** Order of scopes for one name: personal, group, public (as search breaks ties). */
export function scopeRank(scope: SkillScope): number {
  switch (scope.kind) {
    case 'personal':
      return 0;
    case 'group':
      return 1;
    case 'public':
      return 2;
  }
}

/** Each path segment percent-encoded (slashes kept), so any manifest path makes a valid URI. */
function encodedPath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

/** The skill path of a URI, `<scope>/<name>`: unique across scopes, as names are not. */
export function skillPath(scope: SkillScope, name: string): string {
  return `${scopeSegment(scope)}/${name}`;
}

/** The URI of a file (`path`), or of the skill's root folder (`path` null), written one way only. */
export function skillUri(scope: SkillScope, name: string, path: string | null = null): string {
  const root = `${SKILL_URI_PREFIX}${skillPath(scope, name)}`;
  return path === null ? root : `${root}/${encodedPath(path)}`;
}

/** A decoded segment, or null when it is empty, cannot be decoded or hides a slash. */
function decoded(segment: string): string | null {
  if (segment === '') return null;
  let value: string;
  try {
    value = decodeURIComponent(segment);
  } catch {
    return null;
  }
  return value === '' || value.includes('/') ? null : value;
}

/**
 * What a URI names: its first segment is the scope, its second the skill, the rest the path
 * (`skill://plat/deploy/scripts/run.sh` is the file `scripts/run.sh` of `plat`'s skill `deploy`,
 * and never a file of a skill of `plat/deploy`, which is `skill://plat.deploy/...`). Null when
 * the text is no skill URI: another scheme, an empty or undecodable segment, a query or
 * fragment, or a scope or name that cannot exist.
 */
export function parseSkillUri(uri: string): SkillAddress | null {
  if (uri.length > MAX_SKILL_URI_LENGTH || !uri.startsWith(SKILL_URI_PREFIX)) return null;
  const raw = uri.slice(SKILL_URI_PREFIX.length);
  if (/[?#]/.test(raw)) return null;
  const segments: string[] = [];
  for (const part of raw.split('/')) {
    const segment = decoded(part);
    if (segment === null) return null;
    segments.push(segment);
  }
  if (segments.length < 2) return null;
  const [first, name, ...rest] = segments;
  const scope = scopeOfSegment(first);
  if (!scope || !isSkillName(name)) return null;
  return { scope, name, path: rest.length ? rest.join('/') : null };
}
