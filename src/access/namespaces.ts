// Namespaces: `default` (personal and public things) or a group name of up to three segments,
// and how a group's name places it among its parents.
export const DEFAULT_NAMESPACE = 'default';
export const RESERVED_SEGMENTS: readonly string[] = ['default', 'public', 'api', 'admin'];
export const MAX_GROUP_DEPTH = 3;
const SEGMENT = /^[a-z0-9-]{1,64}$/;

/** Every rule a group name breaks (empty when it is valid). */
export function groupNameProblems(name: string): string[] {
  const segments = name.split('/');
  const problems: string[] = [];
  if (segments.length > MAX_GROUP_DEPTH) problems.push(`name must have at most ${MAX_GROUP_DEPTH} segments`);
  for (const segment of segments) {
    if (!SEGMENT.test(segment)) {
      problems.push(`name segment "${segment}" must be 1-64 characters of a-z, 0-9 and -`);
    } else if (RESERVED_SEGMENTS.includes(segment)) {
      problems.push(`name segment "${segment}" is reserved`);
    }
  }
  return problems;
}

/** `a/b/c` -> [`a`, `a/b`, `a/b/c`]: the groups whose roles hold in `name`. */
export function namespaceLineage(name: string): string[] {
  const segments = name.split('/');
  return segments.map((_, i) => segments.slice(0, i + 1).join('/'));
}

/** `a/b/c` -> `a/b`; null for a top-level group. */
export function parentName(name: string): string | null {
  const at = name.lastIndexOf('/');
  return at < 0 ? null : name.slice(0, at);
}
