// SKILL.md in the Agent Skills format: the frontmatter split from the body, parsed in bounded time
// and memory (a size cap, duplicate keys found with one set per mapping, aliases counted expanded
// before anything is built), and every field checked.
import { isUtf8 } from 'node:buffer';
import { Document, isAlias, isMap, isScalar, isSeq, Node, parseDocument } from 'yaml';
import { unsafeStringReason } from './unsafe-string';
import { parseToolPolicy, ToolPolicy } from '../policy';
import { Problem, problem } from './problem';

export interface SkillMd {
  frontmatter: Record<string, unknown> | null;
  /** The frontmatter values when they are strings, valid or not. */
  name: string | null;
  description: string | null;
  /** The whole SKILL.md as text, when it is UTF-8. */
  text: string | null;
  /**
   * The tool policy (docs/packages.md#tool-policy-fields) when the frontmatter parsed; with policy errors it holds the
   * valid part only, so it never allows more than the author wrote.
   */
  policy: ToolPolicy | null;
  errors: Problem[];
  warnings: Problem[];
}

const KNOWN_FIELDS = new Set(['name', 'description', 'license', 'compatibility', 'metadata', 'allowed-tools']);
const NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_LONG_DESCRIPTION = 4096;
const MAX_COMPATIBILITY = 500;
const MAX_BODY_LINES = 500;
export const MAX_SKILL_MD_BYTES = 1024 * 1024;
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/** Scalars, mappings and sequences, counted with aliases expanded (docs/packages.md#validation). */
export const MAX_FRONTMATTER_NODES = 10_000;
/** The characters of every scalar, counted with aliases expanded: what the stored JSON can weigh. */
const MAX_EXPANDED_CHARS = 1024 * 1024;

/** `folder` is the skill root's folder name, or null when SKILL.md sits at the archive root. */
export function parseSkillMd(content: Buffer, folder: string | null): SkillMd {
  const result: SkillMd = {
    frontmatter: null,
    name: null,
    description: null,
    text: null,
    policy: null,
    errors: [],
    warnings: [],
  };
  const fail = (
    code: 'FRONTMATTER_MISSING' | 'FRONTMATTER_INVALID' | 'SKILL_MD_TOO_LARGE',
    message: string,
  ): SkillMd => {
    result.errors.push(problem(code, message));
    return result;
  };

  if (content.length > MAX_SKILL_MD_BYTES) {
    return fail(
      'SKILL_MD_TOO_LARGE',
      `SKILL.md is larger than ${MAX_SKILL_MD_BYTES} bytes; move details to other files.`,
    );
  }
  if (!isUtf8(content)) return fail('FRONTMATTER_INVALID', 'SKILL.md is not valid UTF-8 text.');
  result.text = content.toString('utf8');
  const split = splitFrontmatter(result.text);
  if (typeof split === 'string') return fail('FRONTMATTER_MISSING', split);
  if (split.bodyLines > MAX_BODY_LINES) {
    const message = `The SKILL.md body has ${split.bodyLines} lines; keep it under ${MAX_BODY_LINES} and move details to other files.`;
    result.warnings.push(problem('BODY_LONG', message));
  }
  if (Buffer.byteLength(split.yaml, 'utf8') > MAX_FRONTMATTER_BYTES) {
    return fail('FRONTMATTER_INVALID', `The frontmatter is larger than ${MAX_FRONTMATTER_BYTES} bytes.`);
  }

  const parsed = parseYamlMapping(split.yaml);
  if (typeof parsed === 'string') return fail('FRONTMATTER_INVALID', parsed);
  result.frontmatter = parsed;
  if (typeof parsed.name === 'string') result.name = parsed.name;
  if (typeof parsed.description === 'string') result.description = parsed.description;
  const fields = fieldProblems(parsed, folder);
  result.errors.push(...fields.errors);
  result.warnings.push(...fields.warnings);
  // `allowed-tools` and `requires` are read by the one policy parser, so what is checked here is
  // exactly what is stored and served.
  const policy = parseToolPolicy(parsed);
  result.policy = { allowed_tools: policy.allowed_tools, requires: policy.requires };
  result.errors.push(...policy.errors);
  result.warnings.push(...policy.warnings);
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

class FrontmatterError extends Error {}

function parseYamlMapping(yaml: string): Record<string, unknown> | string {
  // uniqueKeys is off because the library's check compares every pair of keys; ours is linear.
  const doc = parseDocument(yaml, { schema: 'core', uniqueKeys: false, prettyErrors: false });
  if (doc.errors.length > 0) {
    return `The frontmatter is not valid YAML: ${doc.errors[0].message.split('\n')[0]}`;
  }
  if (!isMap(doc.contents)) return 'The frontmatter must be a mapping of fields to values.';
  try {
    return new PlainBuilder(doc).build(doc.contents) as Record<string, unknown>;
  } catch (err) {
    if (err instanceof FrontmatterError) return err.message;
    throw err;
  }
}

/**
 * Turns the YAML tree into plain JSON data in one pass in document order. An alias stands for the
 * node its anchor last named before it, so its weight is known when it is met; the build stops as
 * soon as the expanded tree would pass the limits, before it is made.
 */
class PlainBuilder {
  private readonly anchors = new Map<string, Node>();
  /** Expanded node count and characters of every finished node. */
  private readonly weights = new Map<Node, { nodes: number; chars: number }>();
  private readonly built = new Map<Node, unknown>();
  private nodes = 0;
  private chars = 0;

  constructor(private readonly doc: Document) {}

  build(node: unknown): unknown {
    if (isAlias(node)) {
      const target = this.anchors.get(node.source);
      const weight = target && this.weights.get(target);
      if (!target || !weight)
        throw new FrontmatterError(`The frontmatter alias *${node.source} refers to itself or to nothing.`);
      this.count(weight.nodes, weight.chars);
      return this.built.get(target);
    }
    if (!isScalar(node) && !isMap(node) && !isSeq(node)) {
      throw new FrontmatterError('The frontmatter may only hold strings, numbers, booleans, lists and mappings.');
    }
    if (node.anchor) this.anchors.set(node.anchor, node);
    const before = { nodes: this.nodes, chars: this.chars };
    let value: unknown;
    if (isScalar(node)) {
      value = plainScalar(node.value);
      this.count(1, typeof value === 'string' ? value.length : 1);
    } else if (isSeq(node)) {
      this.count(1, 0);
      value = node.items.map((item) => this.build(item));
    } else {
      this.count(1, 0);
      const mapping: Record<string, unknown> = {};
      const keys = new Set<string>();
      for (const pair of node.items) {
        if (!isScalar(pair.key)) throw new FrontmatterError('The frontmatter may only use plain values as keys.');
        const key = pair.key.value === null ? '' : String(plainScalar(pair.key.value));
        if (keys.has(key)) throw new FrontmatterError(`The frontmatter has the key "${key.slice(0, 64)}" twice.`);
        keys.add(key);
        this.count(0, key.length);
        // defineProperty, so a key such as "__proto__" is a key like any other.
        Object.defineProperty(mapping, key, {
          value: pair.value === null ? null : this.build(pair.value),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      value = mapping;
    }
    this.weights.set(node, { nodes: this.nodes - before.nodes, chars: this.chars - before.chars });
    this.built.set(node, value);
    return value;
  }

  private count(nodes: number, chars: number): void {
    this.nodes += nodes;
    this.chars += chars;
    if (this.nodes > MAX_FRONTMATTER_NODES) {
      throw new FrontmatterError(
        `The frontmatter expands to more than ${MAX_FRONTMATTER_NODES} values once its aliases are followed.`,
      );
    }
    if (this.chars > MAX_EXPANDED_CHARS) {
      throw new FrontmatterError(
        `The frontmatter expands to more than ${MAX_EXPANDED_CHARS} characters once its aliases are followed.`,
      );
    }
  }
}

/** The frontmatter is stored and hashed as JSON, so binary values or infinities cannot be kept. */
function plainScalar(value: unknown): string | number | boolean | null {
  // Stored as text: U+0000 cannot be, and a lone surrogate would silently become U+FFFD.
  if (typeof value === 'string' && unsafeStringReason(value) !== null) {
    throw new FrontmatterError('The frontmatter must not hold U+0000 or lone surrogates.');
  }
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  throw new FrontmatterError('The frontmatter may only hold strings, finite numbers, booleans, lists and mappings.');
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function codePoints(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0xd800 || code > 0xdbff) count++;
  }
  return count;
}

function fieldProblems(
  fields: Record<string, unknown>,
  folder: string | null,
): { errors: Problem[]; warnings: Problem[] } {
  const errors: Problem[] = [];
  const warnings: Problem[] = [];
  const has = (key: string): boolean => Object.hasOwn(fields, key);

  const { name, description } = fields;
  if (name === undefined || name === null) {
    errors.push(problem('NAME_MISSING', 'The frontmatter has no "name".', 'name'));
  } else if (typeof name !== 'string' || codePoints(name) > MAX_NAME || !NAME_PATTERN.test(name)) {
    const message = `The name must be 1-${MAX_NAME} characters of a-z, 0-9 and "-", with no hyphen at either end and no "--".`;
    errors.push(problem('NAME_INVALID', message, 'name'));
  } else if (folder !== null && name !== folder) {
    const message = `The name "${name}" differs from the skill folder "${folder}/"; they must be equal.`;
    errors.push(problem('NAME_MISMATCH', message, 'name'));
  }

  if (description === undefined || description === null) {
    errors.push(problem('DESCRIPTION_MISSING', 'The frontmatter has no "description".', 'description'));
  } else if (typeof description !== 'string' || description.trim() === '') {
    errors.push(problem('DESCRIPTION_INVALID', 'The description must be a non-blank string.', 'description'));
  } else if (codePoints(description) > MAX_LONG_DESCRIPTION) {
    const message = `The description has ${codePoints(description)} characters; at most ${MAX_LONG_DESCRIPTION} are allowed.`;
    errors.push(problem('DESCRIPTION_INVALID', message, 'description'));
  } else if (codePoints(description) > MAX_DESCRIPTION) {
    const message = `The description has ${codePoints(description)} characters; the format allows ${MAX_DESCRIPTION}, and some runtimes cut it there.`;
    warnings.push(problem('DESCRIPTION_LONG', message, 'description'));
  }

  if (has('license') && typeof fields.license !== 'string') {
    errors.push(problem('LICENSE_INVALID', 'The license must be a string.', 'license'));
  }
  const { compatibility } = fields;
  if (
    has('compatibility') &&
    (typeof compatibility !== 'string' || compatibility === '' || codePoints(compatibility) > MAX_COMPATIBILITY)
  ) {
    const message = `The compatibility note must be a string of 1-${MAX_COMPATIBILITY} characters.`;
    errors.push(problem('COMPATIBILITY_INVALID', message, 'compatibility'));
  }
  const { metadata } = fields;
  if (has('metadata')) {
    if (!isRecord(metadata)) {
      errors.push(problem('METADATA_INVALID', 'The metadata must be a mapping.', 'metadata'));
    } else {
      const nested = Object.keys(metadata).filter((key) => typeof metadata[key] !== 'string');
      if (nested.length > 0) {
        const listed = nested.slice(0, 10).map((key) => `"${key.slice(0, 64)}"`);
        const more = nested.length > 10 ? ` and ${nested.length - 10} more` : '';
        const message = `The format asks for string metadata values; kept as written for ${listed.join(', ')}${more}.`;
        warnings.push(problem('METADATA_NOT_STRINGS', message, 'metadata'));
      }
    }
  }
  return { errors, warnings };
}
