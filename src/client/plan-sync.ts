// What a sync decides, apart from what it does: from the lock of DIR, what was found in DIR and
// the task's refs, which skill folders stay, which are written, rebuilt, claimed or removed, what
// the lock says while that happens and after it, and the exit code. No file, no network: sync.ts
// gathers the facts, calls these, and carries the plan out.
import { EXIT_FAILED, EXIT_INTEGRITY, EXIT_OK, EXIT_UNRESOLVED, ExitCode } from './errors';
import { LockedSkill, LockFile, Unresolved } from './lock-file';
import { Ref } from './task-skills';

/** What a sync found at `DIR/<name>` before deciding anything. */
export type Found =
  /** The lock lists it and it matches the lock (with --verify, every sha256 too). */
  | 'intact'
  /** The lock lists it and it differs: a file missing, added, resized, of another mode (or sha256). */
  | 'damaged'
  /** The lock does not list it, and nothing is there. */
  | 'free'
  /** The lock does not list it, and something is there. */
  | 'occupied';

export type Step =
  /** Listed, same content hash, folder intact: nothing to do. */
  | { name: string; action: 'keep'; entry: LockedSkill }
  /** A name new to DIR, its place free. */
  | { name: string; action: 'add'; ref: Ref }
  /** Listed, and the ref's content hash is another (or a killed sync left it marked). */
  | { name: string; action: 'change'; ref: Ref; entry: LockedSkill }
  /** Listed, same content hash, but the folder differs from the lock (or was left marked). */
  | { name: string; action: 'rebuild'; ref: Ref; entry: LockedSkill }
  /**
   * Not listed, something in its place: the client never wrote it as far as it knows, so it is
   * only taken into the lock when it is exactly the ref's package (every file, size, mode and
   * sha256, nothing else); otherwise the skill fails and the folder stays as it is.
   */
  | { name: string; action: 'claim'; ref: Ref }
  /** Listed, and its name left the set. */
  | { name: string; action: 'remove'; entry: LockedSkill };

export type Action = Step['action'];

export interface Plan {
  /** By name. */
  steps: Step[];
  /**
   * The lock to write before any folder changes (null when none will): every name about to be
   * written, rebuilt or removed is marked pending, so a sync killed midway leaves a lock listing
   * each folder it may have touched. A claim is not marked: until it is adopted, the folder is not
   * the client's.
   */
  marked: Record<string, LockedSkill> | null;
}

export interface PlanInput {
  /** The lock's skills; `{}` without a lock. */
  previous: Readonly<Record<string, LockedSkill>>;
  refs: readonly Ref[];
  /** For every name of `previous` and `refs`; a name left out counts as damaged (listed) or occupied. */
  found: ReadonlyMap<string, Found>;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function lockedOf(ref: Ref, files: LockedSkill['files']): LockedSkill {
  return { skill_id: ref.skill_id, version: ref.version, content_hash: ref.content_hash, files };
}

/** Keep, add, change, rebuild, claim or remove, per skill. */
export function planSync({ previous, refs, found }: PlanInput): Plan {
  const steps: Step[] = [];
  const wanted = new Set<string>();
  for (const ref of refs) {
    const name = ref.name;
    wanted.add(name);
    const entry = Object.hasOwn(previous, name) ? previous[name] : undefined;
    if (!entry) {
      steps.push(found.get(name) === 'free' ? { name, action: 'add', ref } : { name, action: 'claim', ref });
    } else if (entry.content_hash !== ref.content_hash) {
      steps.push({ name, action: 'change', ref, entry });
    } else if (entry.pending || found.get(name) !== 'intact') {
      steps.push({ name, action: 'rebuild', ref, entry });
    } else {
      steps.push({ name, action: 'keep', entry });
    }
  }
  for (const name of Object.keys(previous)) {
    if (!wanted.has(name)) steps.push({ name, action: 'remove', entry: previous[name] });
  }
  steps.sort((a, b) => byName(a.name, b.name));

  const changing = steps.some((s) => s.action !== 'keep' && s.action !== 'claim');
  if (!changing) return { steps, marked: null };
  const marked: Record<string, LockedSkill> = {};
  for (const step of steps) {
    switch (step.action) {
      case 'keep':
        marked[step.name] = step.entry;
        break;
      case 'add':
        marked[step.name] = { ...lockedOf(step.ref, []), pending: true };
        break;
      case 'change':
      case 'rebuild':
        marked[step.name] = { ...lockedOf(step.ref, step.entry.files), pending: true };
        break;
      case 'remove':
        marked[step.name] = { ...step.entry, pending: true };
        break;
      case 'claim':
        break;
    }
  }
  return { steps, marked };
}

/** What became of one step: for a written or claimed skill, its new lock entry. */
export type Outcome = { ok: true; entry?: LockedSkill } | { ok: false };

/**
 * The lock's skills once the steps ran. A step that failed (or never ran: the deadline came
 * first) leaves what the lock said before: the previous entry of a written or rebuilt name (its
 * folder was not replaced), nothing for a name the lock did not list, and a removal still marked,
 * so a later sync does it.
 */
export function lockAfter(plan: Plan, outcomes: ReadonlyMap<string, Outcome>): Record<string, LockedSkill> {
  const skills: Record<string, LockedSkill> = {};
  for (const step of plan.steps) {
    const outcome = outcomes.get(step.name) ?? { ok: false };
    switch (step.action) {
      case 'keep':
        skills[step.name] = step.entry;
        break;
      case 'add':
      case 'claim':
      case 'change':
      case 'rebuild':
        if (outcome.ok && outcome.entry) skills[step.name] = outcome.entry;
        else if (step.action === 'change' || step.action === 'rebuild') skills[step.name] = step.entry;
        break;
      case 'remove':
        if (!outcome.ok) skills[step.name] = { ...step.entry, pending: true };
        break;
    }
  }
  return skills;
}

/**
 * The fingerprint to send as `If-None-Match`: the lock's, when it was written for this service,
 * task and choice of set, and every folder it lists is intact. Otherwise none, since the sync
 * needs the refs to rebuild (and a 304 would tell it nothing).
 */
export function conditionalFingerprint(
  lock: LockFile | null,
  run: { url: string; taskId: number; preloadOnly: boolean },
  found: ReadonlyMap<string, Found>,
): string | null {
  if (!lock || lock.fingerprint === null) return null;
  if (lock.url !== run.url || lock.task_id !== run.taskId || lock.preload_only !== run.preloadOnly) return null;
  const sound = Object.entries(lock.skills).every(([name, skill]) => !skill.pending && found.get(name) === 'intact');
  return sound ? lock.fingerprint : null;
}

/** 4 wins over 1, and 1 over 3. */
export function exitCodeOf(
  failed: ReadonlyArray<{ exit_code: ExitCode }>,
  unresolved: readonly Unresolved[],
  strict: boolean,
): ExitCode {
  if (failed.some((f) => f.exit_code === EXIT_INTEGRITY)) return EXIT_INTEGRITY;
  if (failed.length > 0) return EXIT_FAILED;
  if (strict && unresolved.length > 0) return EXIT_UNRESOLVED;
  return EXIT_OK;
}
