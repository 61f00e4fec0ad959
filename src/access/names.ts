// What a skill name and a namespace can look like. Stored selections are read through these: a
// value that cannot be one names nothing, so it is never looked up.
export const MAX_SKILL_NAME_LENGTH = 64;

/** A skill name: a-z and 0-9 in words joined by single hyphens (its length is checked apart). */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(-[a-z0-9]+)*$/;
/** `default`, or a group name of 1-3 segments (reserved segments are simply never found). */
const NAMESPACE = /^(?:default|[a-z0-9-]{1,64}(?:\/[a-z0-9-]{1,64}){0,2})$/;
export const MAX_NAMESPACE_LENGTH = 200;

/** True when a published skill could bear this name. */
export function isSkillName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_SKILL_NAME_LENGTH && SKILL_NAME_PATTERN.test(value);
}

/** True when a skill could live in this namespace. */
export function isNamespaceName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_NAMESPACE_LENGTH && NAMESPACE.test(value);
}

/** A positive 32-bit integer: the only ids and version numbers a row can have. */
export function isRowNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 2_147_483_647;
}
