// Building the parser's problems: one per bad entry, a bounded number of them, values shown briefly.
import { PolicyErrorCode, PolicyProblem, PolicyWarningCode } from './policy.types';

/** A field with thousands of bad entries reports this many, then one line counting the rest. */
export const MAX_PROBLEMS_PER_FIELD = 20;

const MAX_SHOWN_CODE_POINTS = 80;

export function policyProblem(
  code: PolicyErrorCode | PolicyWarningCode,
  message: string,
  field: string,
): PolicyProblem {
  return { code, message, field };
}

/** A value quoted for a message, cut when it is long enough to drown the message. */
export function shown(value: string): string {
  let count = 0;
  let end = 0;
  // Walks at most MAX_SHOWN_CODE_POINTS + 1 code points, however long the value is.
  for (const char of value) {
    if (count === MAX_SHOWN_CODE_POINTS) return JSON.stringify(`${value.slice(0, end)}...`);
    count += 1;
    end += char.length;
  }
  return JSON.stringify(value);
}

/** The kind of a YAML value, as a skill author would name it. */
export function kindOf(value: unknown): string {
  if (value === null) return 'empty';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'boolean':
      return 'a boolean';
    case 'object':
      return 'a mapping';
    default:
      return typeof value;
  }
}

/** Collects a field's errors, keeping the first MAX_PROBLEMS_PER_FIELD and counting the rest. */
export class ProblemList {
  private readonly kept: PolicyProblem[] = [];
  private dropped = 0;

  constructor(
    private readonly code: PolicyErrorCode,
    private readonly field: string,
  ) {}

  add(message: string): void {
    if (this.kept.length < MAX_PROBLEMS_PER_FIELD) this.kept.push(policyProblem(this.code, message, this.field));
    else this.dropped += 1;
  }

  get size(): number {
    return this.kept.length + this.dropped;
  }

  list(): PolicyProblem[] {
    if (this.dropped === 0) return [...this.kept];
    const more = `${this.dropped} more problem${this.dropped === 1 ? '' : 's'} of the same kind in ${this.field} (fix the ones above first).`;
    return [...this.kept, policyProblem(this.code, more, this.field)];
  }
}
