// The task's own selections, read from its labels. Writes validate these labels; reads never fail on
// them, whatever was stored before (or by hand): a label that is not a JSON array counts as absent,
// an entry that names nothing is skipped, and a named entry that cannot be a selection (a bad shape,
// a name or namespace no skill can have) stays, marked malformed, and resolves to NOT_FOUND.
import { isNamespaceName, isRowNumber, isSkillName } from '../access';
import { ownValue } from './own-value';
import { ExplicitSelection } from './resolution.types';

export const REQUESTED_SKILL_REFS_LABEL = 'requestedSkillRefs';
export const ADDITIONAL_SKILLS_LABEL = 'additionalSkills';

export type TaskSelections =
  { kind: 'refs'; refs: ExplicitSelection[] } | { kind: 'names'; names: string[] } | { kind: 'none' };

function parseJson(text: unknown): unknown {
  if (typeof text !== 'string') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/**
 * A stored `{name, namespace, is_public, version?, tag?}`; `version` and `tag` only when
 * `keepVersion` (tasks never pin nor follow tags). Undefined when the entry names nothing; malformed when it names something it cannot select.
 */
export function storedSelection(value: unknown, keepVersion = false): ExplicitSelection | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { name, namespace, is_public, version, tag } = value as Record<string, unknown>;
  if (!isName(name)) return undefined;
  if (!isSkillName(name) || !isNamespaceName(namespace) || typeof is_public !== 'boolean') {
    return { name, namespace: typeof namespace === 'string' ? namespace : '', is_public: false, malformed: true };
  }
  if (!keepVersion || (version === undefined && tag === undefined)) return { name, namespace, is_public };
  // A subscription pins a version or follows a tag (docs/resolution.md#version-lifecycle).
  if (tag !== undefined) {
    return typeof tag === 'string' && version === undefined
      ? { name, namespace, is_public, tag }
      : { name, namespace, is_public, malformed: true };
  }
  return isRowNumber(version)
    ? { name, namespace, is_public, version }
    : { name, namespace, is_public, malformed: true };
}

/** Stored explicit selections (a subscription's `skill_refs`, parsed labels): never fails. */
export function storedSelections(value: unknown, keepVersion = false): ExplicitSelection[] {
  if (!Array.isArray(value)) return [];
  const selections: ExplicitSelection[] = [];
  for (const entry of value) {
    const selection = storedSelection(entry, keepVersion);
    if (selection) selections.push(selection);
  }
  return selections;
}

function parseNames(text: unknown): string[] | undefined {
  const value = parseJson(text);
  return Array.isArray(value) ? value.filter(isName) : undefined;
}

/** `requestedSkillRefs` when present and non-empty, else the legacy `additionalSkills` names. */
export function parseTaskSelections(labels: Readonly<Record<string, string>>): TaskSelections {
  if (typeof labels !== 'object' || labels === null) return { kind: 'none' };
  const refs = storedSelections(parseJson(ownValue(labels, REQUESTED_SKILL_REFS_LABEL)));
  if (refs.length > 0) return { kind: 'refs', refs };
  const names = parseNames(ownValue(labels, ADDITIONAL_SKILLS_LABEL));
  if (names && names.length > 0) return { kind: 'names', names };
  return { kind: 'none' };
}

/** The names a task's selections carry, in label order. */
export function selectedNames(selections: TaskSelections): string[] {
  switch (selections.kind) {
    case 'refs':
      return selections.refs.map((ref) => ref.name);
    case 'names':
      return selections.names;
    case 'none':
      return [];
  }
}

/** Keeps the first entry of each name: within one source, a repeated name does not override. */
export function firstOfEachName<T>(entries: readonly T[], nameOf: (entry: T) => string): T[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const name = nameOf(entry);
    if (seen.has(name)) return false;
    seen.add(name);
    return true;
  });
}
