// docs/packages.md#tool-policy-fields: what a skill needs in its sandbox, read from VikingBot's, OpenClaw's or the plain metadata key.
import { ProblemList, kindOf, shown } from './policy-problems';
import { PolicyProblem, Requires } from './policy.types';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const BAD_BIN = /[\s/]/;

/** Where `requires` is looked for, first hit wins: VikingBot's key, OpenClaw's, then the plain one. */
const SOURCES: readonly (readonly string[])[] = [['vikingbot', 'requires'], ['openclaw', 'requires'], ['requires']];

export interface RequiresReading {
  /** Valid names only, sorted and unique; empty lists when nothing is declared. */
  requires: Requires;
  /** The metadata path it was read from, e.g. `metadata.vikingbot.requires`; null when absent. */
  source: string | null;
  errors: PolicyProblem[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The value at `path` below `metadata`; `undefined` when a step is missing, not a mapping, or null. */
function valueAt(metadata: Record<string, unknown>, path: readonly string[]): unknown {
  let current: unknown = metadata;
  for (const key of path) {
    if (!isRecord(current) || !Object.hasOwn(current, key)) return undefined;
    current = current[key];
  }
  return current === null ? undefined : current;
}

export function sortedUnique(values: Iterable<string>): string[] {
  // Plain sort compares UTF-16 code units: the same order on every replica and in the fingerprint.
  return [...new Set(values)].sort();
}

/**
 * `metadata` is the frontmatter's `metadata` value (anything; not a mapping means nothing declared,
 * which the package inspection reports as METADATA_INVALID on its own). The first source present
 * decides, even when it is malformed: a bad VikingBot `requires` never falls back to another key.
 * Other keys inside `requires` (OpenClaw's `anyBins`, `config`, ...) are left to their runtimes.
 */
export function parseRequires(metadata: unknown): RequiresReading {
  const empty: Requires = { bins: [], env: [] };
  if (!isRecord(metadata)) return { requires: empty, source: null, errors: [] };
  const path = SOURCES.find((candidate) => valueAt(metadata, candidate) !== undefined);
  if (!path) return { requires: empty, source: null, errors: [] };

  const source = ['metadata', ...path].join('.');
  const errors = new ProblemList('REQUIRES_INVALID', source);
  const value = valueAt(metadata, path);
  if (!isRecord(value)) {
    errors.add(`${source} is ${kindOf(value)}: write a mapping with "bins" and "env", each a name or a list of names.`);
    return { requires: empty, source, errors: errors.list() };
  }

  const bins = namesOf(value.bins, `${source}.bins`, errors, (name) =>
    name === ''
      ? `${source}.bins holds an empty command name.`
      : BAD_BIN.test(name)
        ? `${source}.bins entry ${shown(name)} is not a command name: no whitespace or "/" (name the command, not its path).`
        : null,
  );
  const env = namesOf(value.env, `${source}.env`, errors, (name) =>
    ENV_NAME.test(name)
      ? null
      : `${source}.env entry ${shown(name)} is not an environment variable name: letters, digits and "_", not starting with a digit.`,
  );
  return { requires: { bins: sortedUnique(bins), env: sortedUnique(env) }, source, errors: errors.list() };
}

/** A string (one name) or a list of strings; each name checked by `fault`, which says what is wrong. */
function namesOf(value: unknown, label: string, errors: ProblemList, fault: (name: string) => string | null): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string' && !Array.isArray(value)) {
    errors.add(`${label} is ${kindOf(value)}: write a name or a list of names.`);
    return [];
  }
  const items: unknown[] = typeof value === 'string' ? [value] : value;
  const names: string[] = [];
  items.forEach((item, index) => {
    if (typeof item !== 'string') {
      errors.add(`${label} item ${index + 1} is ${kindOf(item)}, not a string.`);
      return;
    }
    const problem = fault(item);
    if (problem === null) names.push(item);
    else errors.add(problem);
  });
  return names;
}
