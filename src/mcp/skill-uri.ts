// Skill URIs of the MCP Skills extension (docs/mcp-skills.md#uris): `skill://<scope>/<name>/<path>`,
// where the scope is `public`, `default` (the caller's personal skills) or a group path of one to
// three segments, and the last skill-path segment is the skill's name. Plain functions, no I/O.
import { DEFAULT_NAMESPACE, groupNameProblems, isSkillName, MAX_GROUP_DEPTH } from '../access';

export const SKILL_URI_PREFIX = 'skill://';
/**
 * The longest URI any method takes: a scope of 200 characters, a name of 64 and a manifest path
 * of at most 4,096 bytes, each byte percent-encoded at worst, fit well within it.
 */
export const MAX_SKILL_URI_LENGTH = 16_384;
export const PUBLIC_SCOPE = 'public';

export type SkillScope = { kind: 'personal' } | { kind: 'public' } | { kind: 'group'; namespace: string };

/** One reading of a URI: a skill in a scope and a path inside it (null: the skill's root folder). */
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

/** The scope's segments in a URI: `public`, `default` or the group path. */
export function scopePath(scope: SkillScope): string {
  switch (scope.kind) {
    case 'public':
      return PUBLIC_SCOPE;
    case 'personal':
      return DEFAULT_NAMESPACE;
    case 'group':
      return scope.namespace;
  }
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

/** The URI of a file (`path`), or of the skill's root folder (`path` null), written one way only. */
export function skillUri(scope: SkillScope, name: string, path: string | null = null): string {
  const root = `${SKILL_URI_PREFIX}${scopePath(scope)}/${name}`;
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

function address(scope: SkillScope, name: string, rest: string[]): SkillAddress | null {
  if (!isSkillName(name)) return null;
  return { scope, name, path: rest.length ? rest.join('/') : null };
}

/**
 * Every skill a URI may name, the deepest group first: `skill://a/b/c/x.md` is the file `x.md`
 * of the skill `c` in group `a/b`, or the file `c/x.md` of the skill `b` in group `a`. The first
 * of these the caller may read is the one meant (docs/mcp-skills.md#uris). Empty when the text
 * is no skill URI: another scheme, an empty or undecodable segment, or a scope or name that
 * cannot exist.
 */
export function parseSkillUri(uri: string): SkillAddress[] {
  if (uri.length > MAX_SKILL_URI_LENGTH || !uri.startsWith(SKILL_URI_PREFIX)) return [];
  const raw = uri.slice(SKILL_URI_PREFIX.length);
  if (/[?#]/.test(raw)) return [];
  const segments: string[] = [];
  for (const part of raw.split('/')) {
    const segment = decoded(part);
    if (segment === null) return [];
    segments.push(segment);
  }
  if (segments.length < 2) return [];
  const [first, ...after] = segments;
  if (first === PUBLIC_SCOPE || first === DEFAULT_NAMESPACE) {
    const scope: SkillScope = first === PUBLIC_SCOPE ? { kind: 'public' } : { kind: 'personal' };
    const found = address(scope, after[0], after.slice(1));
    return found ? [found] : [];
  }
  const found: SkillAddress[] = [];
  for (let depth = Math.min(MAX_GROUP_DEPTH, segments.length - 1); depth >= 1; depth--) {
    const namespace = segments.slice(0, depth).join('/');
    if (groupNameProblems(namespace).length) continue;
    const candidate = address({ kind: 'group', namespace }, segments[depth], segments.slice(depth + 1));
    if (candidate) found.push(candidate);
  }
  return found;
}
