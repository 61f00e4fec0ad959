// Task labels: limits, and the two selection labels, which must be well-formed and carry no ids.
import { ADDITIONAL_SKILLS_LABEL, ExplicitSelection, REQUESTED_SKILL_REFS_LABEL } from '../resolver';

export const MAX_LABELS = 64;
export const MAX_LABEL_KEY_LENGTH = 128;
export const MAX_LABEL_VALUE_BYTES = 16 * 1024;
export const MAX_SELECTIONS = 100;
export const MAX_SKILL_NAME_LENGTH = 64;

const SELECTION_KEYS = ['is_public', 'name', 'namespace'];

function selectionProblem(value: unknown, at: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${at} must be an object`;
  const keys = Object.keys(value).sort();
  const extra = keys.filter((k) => !SELECTION_KEYS.includes(k));
  if (extra.length) return `${at} may only have name, namespace, is_public (not ${extra.join(', ')})`;
  const { name, namespace, is_public } = value as Record<string, unknown>;
  if (typeof name !== 'string' || name.length < 1 || name.length > MAX_SKILL_NAME_LENGTH) {
    return `${at}.name must be a string of 1-${MAX_SKILL_NAME_LENGTH} characters`;
  }
  if (typeof namespace !== 'string' || namespace.length < 1 || namespace.length > 200) {
    return `${at}.namespace must be a string of 1-200 characters`;
  }
  if (typeof is_public !== 'boolean') return `${at}.is_public must be a boolean`;
  if (is_public && namespace !== 'default') return `${at}: a public selection has namespace default`;
  return null;
}

/** Every rule a label set breaks (empty when it is valid). */
export function labelProblems(labels: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const entries = Object.entries(labels);
  if (entries.length > MAX_LABELS) problems.push(`labels must have at most ${MAX_LABELS} keys`);
  for (const [key, value] of entries) {
    if (key.length < 1 || key.length > MAX_LABEL_KEY_LENGTH) {
      problems.push(`labels keys must be 1-${MAX_LABEL_KEY_LENGTH} characters`);
    }
    if (typeof value !== 'string') {
      problems.push(`labels.${key} must be a string`);
    } else if (Buffer.byteLength(value, 'utf8') > MAX_LABEL_VALUE_BYTES) {
      problems.push(`labels.${key} must be at most ${MAX_LABEL_VALUE_BYTES} bytes`);
    }
  }
  problems.push(...selectionLabelProblems(labels));
  return problems;
}

function parsedArray(labels: Record<string, unknown>, key: string, problems: string[]): unknown[] | null {
  const text = labels[key];
  if (typeof text !== 'string') return null;
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value)) return value as unknown[];
  } catch {
    // reported below
  }
  problems.push(`labels.${key} must be a JSON array`);
  return null;
}

function selectionLabelProblems(labels: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const names = parsedArray(labels, ADDITIONAL_SKILLS_LABEL, problems);
  if (names) {
    if (names.length > MAX_SELECTIONS)
      problems.push(`labels.${ADDITIONAL_SKILLS_LABEL} must have at most ${MAX_SELECTIONS} names`);
    names.forEach((name, i) => {
      if (typeof name !== 'string' || name.length < 1 || name.length > MAX_SKILL_NAME_LENGTH) {
        problems.push(
          `labels.${ADDITIONAL_SKILLS_LABEL}[${i}] must be a skill name of 1-${MAX_SKILL_NAME_LENGTH} characters`,
        );
      }
    });
  }
  const refs = parsedArray(labels, REQUESTED_SKILL_REFS_LABEL, problems);
  if (refs) {
    if (refs.length > MAX_SELECTIONS)
      problems.push(`labels.${REQUESTED_SKILL_REFS_LABEL} must have at most ${MAX_SELECTIONS} entries`);
    refs.forEach((ref, i) => {
      const problem = selectionProblem(ref, `labels.${REQUESTED_SKILL_REFS_LABEL}[${i}]`);
      if (problem) problems.push(problem);
    });
  }
  return problems;
}

/** The two labels that carry explicit selections (names, and `{name, namespace, is_public}`). */
export function selectionLabels(selections: ExplicitSelection[]): Record<string, string> {
  return {
    [ADDITIONAL_SKILLS_LABEL]: JSON.stringify(selections.map((s) => s.name)),
    [REQUESTED_SKILL_REFS_LABEL]: JSON.stringify(
      selections.map((s) => ({ name: s.name, namespace: s.namespace, is_public: s.is_public })),
    ),
  };
}
