// docs/api.md#veadk-manifest: a task's resolved skills as VeADK's `remote-skills.json`, in the shape its loader takes.

/** VeADK's timeout bounds, in seconds. */
export const REMOTE_SKILL_TIMEOUT_MIN = 1;
export const REMOTE_SKILL_TIMEOUT_MAX = 1800;

/** One resolved skill: its name, its description and its frontmatter `metadata` (any value). */
export interface RemoteSkillSource {
  name: string;
  description: string;
  metadata?: unknown;
}

export interface RemoteSkillEntry {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
  display_name?: string;
  timeout?: number;
}

export interface RemoteSkillsManifest {
  remote_skills: RemoteSkillEntry[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function field(metadata: unknown, key: string): unknown {
  return isRecord(metadata) && Object.hasOwn(metadata, key) ? metadata[key] : undefined;
}

/** `metadata.input_schema` when it is a mapping whose `type` is `object`, else the empty object schema. */
export function inputSchemaOf(metadata: unknown): Record<string, unknown> {
  const schema = field(metadata, 'input_schema');
  if (isRecord(schema) && schema.type === 'object') return structuredClone(schema);
  return { type: 'object' };
}

/** `metadata.display_name` when it is a string with something other than blanks in it. */
export function displayNameOf(metadata: unknown): string | undefined {
  const name = field(metadata, 'display_name');
  return typeof name === 'string' && name.trim() !== '' ? name : undefined;
}

/** `metadata.timeout` when an integer, or a string of digits, within 1-1800 seconds. */
export function timeoutOf(metadata: unknown): number | undefined {
  const value = field(metadata, 'timeout');
  let seconds: number;
  if (typeof value === 'number') seconds = value;
  else if (typeof value === 'string' && /^[0-9]+$/.test(value)) seconds = Number(value);
  else return undefined;
  const inRange = seconds >= REMOTE_SKILL_TIMEOUT_MIN && seconds <= REMOTE_SKILL_TIMEOUT_MAX;
  return Number.isInteger(seconds) && inRange ? seconds : undefined;
}

/**
 * The manifest of `skills` (the task's resolved set: one entry per name). Entries are in name
 * order whatever the input order. Descriptions are non-blank for every published version; a blank
 * one (never stored by the publish checks) would break VeADK's loader, so the name stands in.
 */
export function buildRemoteSkillsManifest(skills: readonly RemoteSkillSource[]): RemoteSkillsManifest {
  const ordered = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    remote_skills: ordered.map((skill) => {
      const entry: RemoteSkillEntry = {
        name: skill.name,
        description: skill.description.trim() === '' ? skill.name : skill.description,
        input_schema: inputSchemaOf(skill.metadata),
      };
      const displayName = displayNameOf(skill.metadata);
      if (displayName !== undefined) entry.display_name = displayName;
      const timeout = timeoutOf(skill.metadata);
      if (timeout !== undefined) entry.timeout = timeout;
      return entry;
    }),
  };
}
