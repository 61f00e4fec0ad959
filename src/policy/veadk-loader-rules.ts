// The checks VeADK's `load_remote_skill_definitions` makes on a remote-skills.json, written from its
// documentation (not from the builder), so that a served manifest can be held against them.

/**
 * Every way `doc` (a parsed JSON value) breaks VeADK's loader, as readable lines; empty when the
 * loader takes it. Rules: an object with a `remote_skills` list of objects; each has a non-empty
 * string `name`, unique in the list, and a non-empty string `description`; `input_schema` is a JSON
 * object; `timeout` and its alias `timeout_seconds`, when present, are integers 1-1800;
 * `display_name`, when present, is a string or null. Blank strings and booleans (which Python
 * would take as the integers 0 and 1) are refused too: stricter than the loader is safe here.
 */
export function remoteSkillsLoaderViolations(doc: unknown): string[] {
  const violations: string[] = [];
  if (!isObject(doc)) return ['the document is not a JSON object'];
  const list = doc.remote_skills;
  if (!Array.isArray(list)) return ['"remote_skills" is not a list'];
  const seen = new Set<string>();
  list.forEach((item: unknown, index) => {
    const at = `remote_skills[${index}]`;
    if (!isObject(item)) {
      violations.push(`${at} is not an object`);
      return;
    }
    if (!isFilledString(item.name)) violations.push(`${at}.name is not a non-empty string`);
    else if (seen.has(item.name)) violations.push(`${at}.name ${JSON.stringify(item.name)} is a duplicate`);
    else seen.add(item.name);
    if (!isFilledString(item.description)) violations.push(`${at}.description is not a non-empty string`);
    if (!isObject(item.input_schema)) violations.push(`${at}.input_schema is not a JSON object`);
    for (const key of ['timeout', 'timeout_seconds']) {
      if (Object.hasOwn(item, key) && !isTimeout(item[key])) violations.push(`${at}.${key} is not an integer 1-1800`);
    }
    if (Object.hasOwn(item, 'display_name') && item.display_name !== null && typeof item.display_name !== 'string') {
      violations.push(`${at}.display_name is not a string`);
    }
  });
  return violations;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFilledString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function isTimeout(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= 1800;
}
