// SKILL.md in the Agent Skills format: the frontmatter split from the body, parsed, and every field checked.
import { isUtf8 } from 'node:buffer';
import { isMap, isScalar, parseDocument, visit } from 'yaml';
import { unsafeStringReason } from '../../common/input-hygiene';
import { Problem, errorText, problem } from './problem';

export interface SkillMd {
  frontmatter: Record<string, unknown> | null;
  /** The frontmatter values when they are strings, valid or not. */
  name: string | null;
  description: string | null;
  errors: Problem[];
  warnings: Problem[];
}

const KNOWN_FIELDS = new Set(['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools']);
const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_COMPATIBILITY = 500;
const MAX_BODY_LINES = 500;

/** `folder` is the skill root's folder name, or null when SKILL.md sits at the archive root. */
export function parseSkillMd(content: Buffer, folder: string | null): SkillMd {
  const result: SkillMd = { frontmatter: null, name: null, description: null, errors: [], warnings: [] };
  const fail = (code: 'FRONTMATTER_MISSING' | 'FRONTMATTER_INVALID', message: string): SkillMd => {
    result.errors.push(problem(code, message));
    return result;
  };

  if (!isUtf8(content)) return fail('FRONTMATTER_INVALID', 'SKILL.md is not valid UTF-8 text.');
  const split = splitFrontmatter(content.toString('utf8'));
  if (typeof split === 'string') return fail('FRONTMATTER_MISSING', split);
  if (split.bodyLines > MAX_BODY_LINES) {
    const message = `The SKILL.md body has ${split.bodyLines} lines; keep it under ${MAX_BODY_LINES} and move details to other files.`;
    result.warnings.push(problem('BODY_LONG', message));
  }

  const parsed = parseYamlMapping(split.yaml);
  if (typeof parsed === 'string') return fail('FRONTMATTER_INVALID', parsed);
  result.frontmatter = parsed;
  if (typeof parsed.name === 'string') result.name = parsed.name;
  if (typeof parsed.description === 'string') result.description = parsed.description;
  result.errors.push(...fieldProblems(parsed, folder));
  for (const key of Object.keys(parsed)) {
    if (!KNOWN_FIELDS.has(key)) {
      result.warnings.push(problem('UNKNOWN_FIELD', `The frontmatter field "${key}" is not part of the format.`, key));
    }
  }
  return result;
}

/** The YAML between the delimiter lines and the number of body lines, or why there is none. */
function splitFrontmatter(text: string): { yaml: string; bodyLines: number } | string {
  const lines = (text.startsWith('\uFEFF') ? text.slice(1) : text).split('\n').map((line) => line.replace(/\r$/, ''));
  if (lines[0] !== '---') return 'SKILL.md must start with a "---" line opening the frontmatter.';
  // The closing delimiter is a line of its own, so "---" inside a value never ends the frontmatter.
  const close = lines.findIndex((line, index) => index > 0 && /^---[ \t]*$/.test(line));
  if (close < 0) return 'The SKILL.md frontmatter has no closing "---" line.';
  const body = lines.slice(close + 1);
  if (body.length > 0 && body[body.length - 1] === '') body.pop();
  return { yaml: lines.slice(1, close).join('\n'), bodyLines: body.length };
}

function parseYamlMapping(yaml: string): Record<string, unknown> | string {
  const doc = parseDocument(yaml, { schema: 'core', uniqueKeys: true });
  if (doc.errors.length > 0) {
    return `The frontmatter is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`;
  }
  if (!isMap(doc.contents)) return 'The frontmatter must be a mapping of fields to values.';
  let complexKey = false;
  visit(doc, {
    Pair(_key, pair) {
      if (!isScalar(pair.key)) {
        complexKey = true;
        return visit.BREAK;
      }
      return undefined;
    },
  });
  if (complexKey) return 'The frontmatter may only use plain values as keys.';
  let value: unknown;
  try {
    // The alias cap keeps a "billion laughs" document from expanding.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (err) {
    return `The frontmatter cannot be read: ${errorText(err)}.`;
  }
  // The frontmatter is stored and hashed as JSON, so binary values or infinities cannot be kept.
  if (!isPlainData(value) || !isRecord(value)) {
    return 'The frontmatter may only hold strings, numbers, booleans, lists and mappings.';
  }
  // Stored as text: U+0000 cannot be, and a lone surrogate would silently become U+FFFD.
  if (holdsUnstorableText(value)) return 'The frontmatter must not hold U+0000 or lone surrogates.';
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isPlainData(value: unknown): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every(isPlainData);
  if (isRecord(value) && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.values(value).every(isPlainData);
  }
  return false;
}

function holdsUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return unsafeStringReason(value) !== null;
  if (Array.isArray(value)) return value.some(holdsUnstorableText);
  if (isRecord(value)) {
    return Object.entries(value).some(([key, v]) => unsafeStringReason(key) !== null || holdsUnstorableText(v));
  }
  return false;
}

function codePoints(value: string): number {
  return [...value].length;
}

function fieldProblems(fields: Record<string, unknown>, folder: string | null): Problem[] {
  const problems: Problem[] = [];
  const has = (key: string): boolean => Object.hasOwn(fields, key);

  const { name, description } = fields;
  if (name === undefined || name === null) {
    problems.push(problem('NAME_MISSING', 'The frontmatter has no "name".', 'name'));
  } else if (typeof name !== 'string' || codePoints(name) > MAX_NAME || !NAME_PATTERN.test(name)) {
    const message = `The name must be 1-${MAX_NAME} characters of a-z, 0-9 and "-", with no hyphen at either end and no "--".`;
    problems.push(problem('NAME_INVALID', message, 'name'));
  } else if (folder !== null && name !== folder) {
    const message = `The name "${name}" differs from the skill folder "${folder}/"; they must be equal.`;
    problems.push(problem('NAME_MISMATCH', message, 'name'));
  }

  if (description === undefined || description === null) {
    problems.push(problem('DESCRIPTION_MISSING', 'The frontmatter has no "description".', 'description'));
  } else if (typeof description !== 'string' || description.trim() === '') {
    problems.push(problem('DESCRIPTION_INVALID', 'The description must be a non-blank string.', 'description'));
  } else if (codePoints(description) > MAX_DESCRIPTION) {
    const message = `The description has ${codePoints(description)} characters; at most ${MAX_DESCRIPTION} are allowed.`;
    problems.push(problem('DESCRIPTION_INVALID', message, 'description'));
  }

  if (has('license') && typeof fields.license !== 'string') {
    problems.push(problem('LICENSE_INVALID', 'The license must be a string.', 'license'));
  }
  const { compatibility } = fields;
  if (
    has('compatibility') &&
    (typeof compatibility !== 'string' || compatibility === '' || codePoints(compatibility) > MAX_COMPATIBILITY)
  ) {
    const message = `The compatibility note must be a string of 1-${MAX_COMPATIBILITY} characters.`;
    problems.push(problem('COMPATIBILITY_INVALID', message, 'compatibility'));
  }
  const { metadata } = fields;
  if (has('metadata')) {
    if (!isRecord(metadata)) {
      problems.push(problem('METADATA_INVALID', 'The metadata must be a mapping of strings to strings.', 'metadata'));
    } else {
      const bad = Object.keys(metadata).filter((key) => typeof metadata[key] !== 'string');
      if (bad.length > 0) {
        const message = `The metadata values must be strings; not so for ${bad.map((key) => `"${key}"`).join(', ')} (quote them).`;
        problems.push(problem('METADATA_INVALID', message, 'metadata'));
      }
    }
  }
  if (has('allowed-tools') && typeof fields['allowed-tools'] !== 'string') {
    const message = 'The allowed-tools field must be a string of space-separated tool names.';
    problems.push(problem('ALLOWED_TOOLS_INVALID', message, 'allowed-tools'));
  }
  return problems;
}
