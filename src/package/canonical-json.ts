// RFC 8785 (JSON Canonicalization Scheme) for the values this service hashes: objects, arrays,
// strings, booleans, null and finite numbers. Keys are sorted by UTF-16 code units, strings use
// ECMAScript JSON escaping, numbers the ECMAScript shortest form: exactly what RFC 8785 specifies.
import { createHash } from 'node:crypto';

/** Printable ASCII but the quote and the backslash: a string of only these is its own JSON text, quoted. */
const PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** JSON.stringify of a string, without the call for the common case (names, hashes, namespaces). */
function jsonString(value: string): string {
  return PLAIN.test(value) ? `"${value}"` : JSON.stringify(value);
}

/**
 * Texts already written for objects that are never changed once made (parts of a resolution):
 * used as they are, so an object shared by many answers is written once. A Map or WeakMap is one.
 */
export interface KnownTexts {
  get(value: object): string | undefined;
}

export function canonicalJson(value: unknown, known?: KnownTexts): string {
  switch (typeof value) {
    case 'string':
      return jsonString(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new Error('canonical JSON has no representation for non-finite numbers');
      return JSON.stringify(value);
    case 'object':
      if (value === null) return 'null';
      return (
        known?.get(value) ??
        (Array.isArray(value) ? canonicalArray(value, known) : canonicalObject(value as Record<string, unknown>, known))
      );
    default:
      throw new Error(`canonical JSON has no representation for ${typeof value}`);
  }
}

// Built by concatenation: the resolution's fingerprint hashes a few hundred values per answer.
function canonicalArray(values: unknown[], known?: KnownTexts): string {
  let out = '[';
  for (let i = 0; i < values.length; i++) out += (i === 0 ? '' : ',') + canonicalJson(values[i], known);
  return `${out}]`;
}

function canonicalObject(value: Record<string, unknown>, known?: KnownTexts): string {
  // The default sort compares UTF-16 code units, as RFC 8785 requires; undefined members are left out.
  const keys = Object.keys(value).sort();
  let out = '{';
  for (const key of keys) {
    const member = value[key];
    if (member === undefined) continue;
    out += `${out.length === 1 ? '' : ','}${jsonString(key)}:${canonicalJson(member, known)}`;
  }
  return `${out}}`;
}

/**
 * The same text in one piece. V8 keeps a concatenation as a tree of its parts, which every text
 * later built from it walks again when it is hashed or written: a text kept to be reused many
 * times is better copied flat once (a JSON round trip of a string is exact).
 */
export function inOnePiece(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}

/** `sha256:<hex>` of the canonical JSON of `value`. */
export function canonicalDigest(value: unknown, known?: KnownTexts): string {
  return `sha256:${createHash('sha256').update(canonicalJson(value, known), 'utf8').digest('hex')}`;
}
