// The task's own selections, read from its labels. Writes validate these labels; reads never crash on
// them: a label that is not exactly the expected shape counts as absent.
import { ownValue } from './own-value';
import { ExplicitSelection } from './resolution.types';

export const REQUESTED_SKILL_REFS_LABEL = 'requestedSkillRefs';
export const ADDITIONAL_SKILLS_LABEL = 'additionalSkills';

export type TaskSelections =
  { kind: 'refs'; refs: ExplicitSelection[] } | { kind: 'names'; names: string[] } | { kind: 'none' };

function parseJson(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0;
}

/** `{name, namespace, is_public}`; any `version` or other key is dropped: tasks never pin. */
function asSelection(value: unknown): ExplicitSelection | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const { name, namespace, is_public } = value as Record<string, unknown>;
  if (!isName(name) || !isName(namespace) || typeof is_public !== 'boolean') return undefined;
  return { name, namespace, is_public };
}

function parseRefs(text: string | undefined): ExplicitSelection[] | undefined {
  const value = parseJson(text);
  if (!Array.isArray(value)) return undefined;
  const refs = value.map(asSelection);
  return refs.every((ref) => ref !== undefined) ? refs : undefined;
}

function parseNames(text: string | undefined): string[] | undefined {
  const value = parseJson(text);
  return Array.isArray(value) && value.every(isName) ? value : undefined;
}

/** `requestedSkillRefs` when present and non-empty, else the legacy `additionalSkills` names. */
export function parseTaskSelections(labels: Readonly<Record<string, string>>): TaskSelections {
  const refs = parseRefs(ownValue(labels, REQUESTED_SKILL_REFS_LABEL));
  if (refs && refs.length > 0) return { kind: 'refs', refs };
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
