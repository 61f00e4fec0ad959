// Task labels: limits, and the two selection labels, which must be well-formed and carry no ids.
// Counts are checked before any entry, and a name or namespace inside the JSON of a selection label
// must be storable text like any other string of a body.
import { DEFAULT_NAMESPACE, MAX_NAMESPACE_LENGTH, MAX_SKILL_NAME_LENGTH } from '../access';
import { childPath, unsafeStringMessage, unsafeStringReason } from '../common/input-hygiene';
import { ADDITIONAL_SKILLS_LABEL, ExplicitSelection, REQUESTED_SKILL_REFS_LABEL } from '../resolver';

export const MAX_LABELS = 64;
export const MAX_LABEL_KEY_LENGTH = 128;
export const MAX_LABEL_VALUE_BYTES = 16 * 1024;
export const MAX_SELECTIONS = 100;

const SELECTION_KEYS = ['is_public', 'name', 'namespace'];

/** A string of 1-`max` UTF-16 units that the database can store; else what is wrong with it. */
function textProblem(value: unknown, at: string, what: string, max: number): string | null {
  if (typeof value !== 'string' || value.length < 1 || value.length > max) return `${at} must be ${what}`;
  const reason = unsafeStringReason(value);
  return reason ? unsafeStringMessage(at, reason) : null;
}

function selectionProblem(value: unknown, at: string): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `${at} must be an object`;
  const extra = Object.keys(value)
    .filter((k) => !SELECTION_KEYS.includes(k))
    .sort();
  if (extra.length) return `${at} may only have name, namespace, is_public (not ${extra.join(', ')})`;
  const { name, namespace, is_public } = value as Record<string, unknown>;
  const nameProblem = textProblem(
    name,
    `${at}.name`,
    `a string of 1-${MAX_SKILL_NAME_LENGTH} characters`,
    MAX_SKILL_NAME_LENGTH,
  );
  if (nameProblem) return nameProblem;
  const namespaceProblem = textProblem(
    namespace,
    `${at}.namespace`,
    `a string of 1-${MAX_NAMESPACE_LENGTH} characters`,
    MAX_NAMESPACE_LENGTH,
  );
  if (namespaceProblem) return namespaceProblem;
  if (typeof is_public !== 'boolean') return `${at}.is_public must be a boolean`;
  if (is_public && namespace !== DEFAULT_NAMESPACE) return `${at}: a public selection has namespace default`;
  return null;
}

/** Every rule a label set breaks (empty when it is valid). */
export function labelProblems(labels: Record<string, unknown>): string[] {
  const entries = Object.entries(labels);
  // Counts first: nothing looks at the entries of an oversized label set.
  if (entries.length > MAX_LABELS) return [`labels must have at most ${MAX_LABELS} keys`];
  const problems: string[] = [];
  for (const [key, value] of entries) {
    if (key.length < 1 || key.length > MAX_LABEL_KEY_LENGTH) {
      problems.push(`labels keys must be 1-${MAX_LABEL_KEY_LENGTH} characters`);
    }
    if (typeof value !== 'string') {
      problems.push(`${childPath('labels', key)} must be a string`);
    } else if (Buffer.byteLength(value, 'utf8') > MAX_LABEL_VALUE_BYTES) {
      problems.push(`${childPath('labels', key)} must be at most ${MAX_LABEL_VALUE_BYTES} bytes`);
    }
  }
  // Sizes and types before contents: an oversized selection label is not parsed.
  if (problems.length) return problems;
  return selectionLabelProblems(labels);
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
  if (names && names.length > MAX_SELECTIONS) {
    problems.push(`labels.${ADDITIONAL_SKILLS_LABEL} must have at most ${MAX_SELECTIONS} names`);
  } else if (names) {
    names.forEach((name, i) => {
      const problem = textProblem(
        name,
        `labels.${ADDITIONAL_SKILLS_LABEL}[${i}]`,
        `a skill name of 1-${MAX_SKILL_NAME_LENGTH} characters`,
        MAX_SKILL_NAME_LENGTH,
      );
      if (problem) problems.push(problem);
    });
  }
  const refs = parsedArray(labels, REQUESTED_SKILL_REFS_LABEL, problems);
  if (refs && refs.length > MAX_SELECTIONS) {
    problems.push(`labels.${REQUESTED_SKILL_REFS_LABEL} must have at most ${MAX_SELECTIONS} entries`);
  } else if (refs) {
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
