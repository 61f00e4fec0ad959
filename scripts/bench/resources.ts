// The agents and the work of the benchmark data set: ghosts with 20 skill names each, one bot per
// ghost, teams of three bots, tasks with selections, subscriptions and background executions.
// Selections point at skills of the 10k layer, so both databases resolve the same names.
import { developersOf, groupName, groupsOf, Skill, USERS, userId } from './catalog';

export const TEAMS = 100;
const PERSONAL_TEAMS = 40;
/** Group teams live in groups 20..79: top-level groups and their children. */
const FIRST_TEAM_GROUP = 20;
const BOTS_PER_TEAM = 3;
const TASKS_PER_TEAM = 20;

export interface StoredRef {
  skill_id: number;
  version?: number;
  pinned?: boolean;
}

export interface Selection {
  name: string;
  namespace: string;
  is_public: boolean;
}

interface Scoped {
  id: number;
  name: string;
  namespace: string;
  ownerUserId: number;
}

export interface Ghost extends Scoped {
  skills: string[];
  preloadSkills: string[];
  skillRefs: Record<string, StoredRef>;
  preloadSkillRefs: Record<string, StoredRef>;
}

export interface Bot extends Scoped {
  ghostId: number;
}

export interface Team extends Scoped {
  members: Array<{ bot_id: number }>;
}

export interface Subscription extends Scoped {
  teamId: number;
  skillRefs: Selection[];
}

export interface Task {
  id: number;
  teamId: number;
  ownerUserId: number;
  namespace: string;
  title: string;
  labels: Record<string, string>;
}

export interface Execution {
  id: number;
  taskId: number;
  subscriptionId: number;
  createdByUserId: number;
}

export interface Resources {
  ghosts: Ghost[];
  bots: Bot[];
  teams: Team[];
  subscriptions: Subscription[];
  tasks: Task[];
  executions: Execution[];
}

/** The live skills each selection may point at, by scope. */
export class Reach {
  readonly public: Skill[];
  readonly deletedPublic: Skill[];
  /** Public skills with two versions, for pinned refs. */
  readonly pinnable: Skill[];
  private readonly byNamespace = new Map<string, Skill[]>();
  private readonly byOwner = new Map<number, Skill[]>();

  constructor(skills: Skill[]) {
    const live = skills.filter((s) => !s.deleted);
    this.public = live.filter((s) => s.isPublic);
    this.deletedPublic = skills.filter((s) => s.isPublic && s.deleted);
    this.pinnable = this.public.filter((s) => s.latestVersion > 1);
    for (const s of live) {
      if (s.isPublic) continue;
      if (s.namespace !== 'default') push(this.byNamespace, s.namespace, s);
      else push(this.byOwner, s.ownerUserId!, s);
    }
  }

  personal(u: number): Skill[] {
    return this.byOwner.get(userId(u)) ?? [];
  }

  inGroup(g: number): Skill[] {
    return this.byNamespace.get(groupName(g)) ?? [];
  }
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Takes skills from a rotating start, skipping names the ghost already lists. */
class NamePicker {
  private readonly used = new Set<string>();

  take(list: Skill[], start: number, n: number): Skill[] {
    const out: Skill[] = [];
    for (let k = 0; k < list.length && out.length < n; k++) {
      const s = list[(start + k) % list.length];
      if (this.used.has(s.name)) continue;
      this.used.add(s.name);
      out.push(s);
    }
    return out;
  }
}

/**
 * 13 stored refs (one pinned), 6 name lookups (personal, team namespace, public) and one name that
 * fails: a name that exists nowhere (NOT_FOUND) or a ref to a deleted skill (DELETED), in turn.
 * Two names are preloaded, one through its own preload ref.
 */
function ghost(gi: number, owner: number, teamGroup: number | null, reach: Reach): Omit<Ghost, keyof Scoped> {
  const pick = new NamePicker();
  const home = teamGroup ?? groupsOf(owner)[0];
  const skills: string[] = [];
  const skillRefs: Record<string, StoredRef> = {};
  const ref = (s: Skill, pin?: number): void => {
    skills.push(s.name);
    skillRefs[s.name] = pin === undefined ? { skill_id: s.id } : { skill_id: s.id, version: pin, pinned: true };
  };
  const lookup = (s: Skill): void => void skills.push(s.name);
  const personalRefs = pick.take(reach.personal(owner), gi, 3);
  personalRefs.forEach((s) => ref(s));
  pick.take(reach.inGroup(home), gi * 5, 5).forEach((s) => ref(s));
  const publicRefs = pick.take(reach.public, gi * 7, 4);
  publicRefs.forEach((s) => ref(s));
  pick.take(reach.pinnable, gi, 1).forEach((s) => ref(s, 1));
  pick.take(reach.personal(owner), gi + 3, 2).forEach(lookup);
  pick.take(teamGroup === null ? reach.public : reach.inGroup(teamGroup), gi * 5 + 10, 1).forEach(lookup);
  pick.take(reach.public, gi * 7 + 200, 3).forEach(lookup);
  if (gi % 2 === 0) skills.push(`retired-${gi}`);
  else pick.take(reach.deletedPublic, gi, 1).forEach((s) => ref(s));
  const preloaded = publicRefs[0];
  return {
    skills,
    preloadSkills: [preloaded.name, personalRefs[0].name],
    skillRefs,
    preloadSkillRefs: { [preloaded.name]: skillRefs[preloaded.name] },
  };
}

/** Most tasks carry explicit selections, the rest the legacy names; some name a missing skill. */
function taskLabels(id: number, i: number, creator: number, teamGroup: number | null, reach: Reach): Task['labels'] {
  const own = reach.personal(creator);
  const mine = own[i % own.length];
  const pub = reach.public[(id * 13) % reach.public.length];
  if (i % 10 < 7) {
    const refs: Selection[] = [
      { name: mine.name, namespace: 'default', is_public: false },
      { name: pub.name, namespace: 'default', is_public: true },
    ];
    if (teamGroup !== null) {
      const inGroup = reach.inGroup(teamGroup);
      refs.push({ name: inGroup[i % inGroup.length].name, namespace: groupName(teamGroup), is_public: false });
    }
    if (i % 10 === 0) refs.push({ name: `unknown-${id}`, namespace: 'default', is_public: true });
    return { requestedSkillRefs: JSON.stringify(refs), priority: 'normal' };
  }
  const names = [mine.name, pub.name, ...(i % 10 === 9 ? [`unknown-${id}`] : [])];
  return { additionalSkills: JSON.stringify(names), priority: 'normal' };
}

export function resources(reach: Reach): Resources {
  const out: Resources = { ghosts: [], bots: [], teams: [], subscriptions: [], tasks: [], executions: [] };
  for (let t = 0; t < TEAMS; t++) {
    const group = t < PERSONAL_TEAMS ? null : FIRST_TEAM_GROUP + t - PERSONAL_TEAMS;
    const namespace = group === null ? 'default' : groupName(group);
    // A personal team is its owner's alone; a group team's bots and tasks come from its developers.
    const owner = group === null ? (t * 37 + 11) % USERS : group;
    const crew = group === null ? [owner] : developersOf(group);
    const members: Team['members'] = [];
    for (let k = 0; k < BOTS_PER_TEAM; k++) {
      const id = t * BOTS_PER_TEAM + k + 1;
      const botOwner = userId(crew[k % crew.length]);
      const g = ghost(id, crew[k % crew.length], group, reach);
      out.ghosts.push({ id, name: `ghost-${t}-${k}`, namespace, ownerUserId: botOwner, ...g });
      out.bots.push({ id, name: `bot-${t}-${k}`, namespace, ownerUserId: botOwner, ghostId: id });
      members.push({ bot_id: id });
    }
    out.teams.push({ id: t + 1, name: `team-${t}`, namespace, ownerUserId: userId(owner), members });
    const subscriptionRefs: Selection[] = [
      { name: reach.public[(t * 31) % reach.public.length].name, namespace: 'default', is_public: true },
      { name: reach.personal(owner)[0].name, namespace: 'default', is_public: false },
    ];
    if (group !== null) subscriptionRefs.push({ name: reach.inGroup(group)[1].name, namespace, is_public: false });
    const sub = { id: t + 1, name: `nightly-${t}`, namespace, ownerUserId: userId(owner), teamId: t + 1 };
    out.subscriptions.push({ ...sub, skillRefs: subscriptionRefs });
    for (let i = 0; i < TASKS_PER_TEAM; i++) {
      const id = t * TASKS_PER_TEAM + i + 1;
      const creator = crew[i % crew.length];
      const labels = taskLabels(id, i, creator, group, reach);
      out.tasks.push({ id, teamId: t + 1, ownerUserId: userId(creator), namespace, title: `Task ${id}`, labels });
      if (i % 3 === 0) {
        const execution = { taskId: id, subscriptionId: sub.id, createdByUserId: sub.ownerUserId };
        out.executions.push({ id: out.executions.length + 1, ...execution });
      }
    }
  }
  return out;
}
