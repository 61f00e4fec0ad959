// Strings PostgreSQL cannot hold (U+0000) or that UTF-8 cannot encode (lone surrogates): the one
// test, shared by the package reader (a manifest's text) and the HTTP edge (common/input-hygiene).
export type UnsafeStringReason = 'NUL' | 'LONE_SURROGATE' | 'INVALID_UTF8';

const wellFormed = (String.prototype as unknown as { isWellFormed?: () => boolean }).isWellFormed;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `value` cannot be stored as text, or null when it can. Linear, native scans. */
export function unsafeStringReason(value: string): UnsafeStringReason | null {
  if (value.includes('\u0000')) return 'NUL';
  const ok = wellFormed ? wellFormed.call(value) : !LONE_SURROGATE.test(value);
  return ok ? null : 'LONE_SURROGATE';
}
