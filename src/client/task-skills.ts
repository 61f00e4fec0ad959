// Reads the answer of GET /api/tasks/{id}/skills (docs/resolution.md#output) strictly enough that nothing in
// it can steer a write outside DIR; fields the client does not use are ignored.
import { ClientError, EXIT_FAILED } from './errors';
import { CONTENT_HASH, SKILL_NAME, Unresolved } from './lock-file';

export interface Ref {
  name: string;
  skill_id: number;
  version: number;
  content_hash: string;
  /** The version's lifecycle status (`active`, `deprecated`, `yanked`); absent from older services. */
  status?: string;
}

/** A status word as the service writes it; anything else is not kept. */
const STATUS = /^[a-z]{1,16}$/;

export interface TaskSkills {
  fingerprint: string;
  refs: Ref[];
  unresolved: Unresolved[];
}

function invalid(why: string): ClientError {
  return new ClientError(EXIT_FAILED, `The service's answer for the task's skills cannot be used: ${why}`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** The refs of `skill_refs` (or `preload_skill_refs`), sorted by name, and the unresolved names of that set. */
export function parseTaskSkills(body: Buffer, preloadOnly: boolean): TaskSkills {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString('utf8'));
  } catch {
    throw invalid('it is not JSON');
  }
  if (!isObject(doc)) throw invalid('it is not an object');
  const { fingerprint } = doc;
  if (typeof fingerprint !== 'string' || !CONTENT_HASH.test(fingerprint)) throw invalid('no fingerprint');
  const map = preloadOnly ? doc.preload_skill_refs : doc.skill_refs;
  if (!isObject(map)) throw invalid(`no ${preloadOnly ? 'preload_skill_refs' : 'skill_refs'}`);
  const refs: Ref[] = [];
  for (const [name, raw] of Object.entries(map)) {
    if (!SKILL_NAME.test(name)) throw invalid(`the skill name ${JSON.stringify(name.slice(0, 80))}`);
    if (!isObject(raw)) throw invalid(`the ref of ${name}`);
    const { skill_id, version, content_hash, status } = raw;
    if (!isInt(skill_id) || !isInt(version) || typeof content_hash !== 'string' || !CONTENT_HASH.test(content_hash)) {
      throw invalid(`the ref of ${name}`);
    }
    const ref: Ref = { name, skill_id, version, content_hash };
    if (typeof status === 'string' && STATUS.test(status)) ref.status = status;
    refs.push(ref);
  }
  refs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  const inSet = preloadOnly && Array.isArray(doc.preload_skills) ? new Set(doc.preload_skills as unknown[]) : null;
  const unresolved: Unresolved[] = [];
  for (const item of Array.isArray(doc.unresolved) ? (doc.unresolved as unknown[]) : []) {
    if (!isObject(item) || typeof item.name !== 'string') continue;
    if (inSet && !inSet.has(item.name)) continue;
    const entry: Unresolved = { name: item.name };
    if (typeof item.source === 'string') entry.source = item.source;
    if (typeof item.reason === 'string') entry.reason = item.reason;
    unresolved.push(entry);
  }
  return { fingerprint, refs, unresolved };
}
