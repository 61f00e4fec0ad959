// A reach, cut into the lookups the skill query answers one by one: a skill by id; the public
// skills of a name; the skills of a name in a group; a user's personal skills of a name. Each
// lookup's answer (the ids of the skills it finds, none as often as not) depends on the skills
// table alone, so it can be kept until the next change, and a reach whose lookups are all kept
// needs no query. What is queried for the rest covers more lookups than were missing (every name
// with every scope asked for), and answers each of them too.
import type { SkillFacts } from '../resolver';
import type { ReachArguments } from './resolution-facts.repository';

export type ReachLookup =
  | { kind: 'id'; id: number }
  | { kind: 'public'; name: string }
  | { kind: 'group'; group: string; name: string }
  | { kind: 'personal'; owner: number; name: string };

/** One key per lookup; no two lookups share one (names and groups hold no `\n`). */
export function lookupKey(lookup: ReachLookup): string {
  switch (lookup.kind) {
    case 'id':
      return `i\n${lookup.id}`;
    case 'public':
      return `p\n${lookup.name}`;
    case 'group':
      return `g\n${lookup.group}\n${lookup.name}`;
    case 'personal':
      return `o\n${lookup.owner}\n${lookup.name}`;
  }
}

/** Every lookup the skill query makes for `args`: the ids, and each name in every scope asked for. */
export function lookupsOf(args: ReachArguments): ReachLookup[] {
  const lookups: ReachLookup[] = args.ids.map((id) => ({ kind: 'id', id }));
  for (const name of args.names) {
    lookups.push({ kind: 'public', name });
    for (const group of args.groups) lookups.push({ kind: 'group', group, name });
    for (const owner of args.owners) lookups.push({ kind: 'personal', owner, name });
  }
  return lookups;
}

/** Whether the skill query, making `lookup`, finds `skill` (deleted skills are found too). */
export function finds(lookup: ReachLookup, skill: SkillFacts): boolean {
  switch (lookup.kind) {
    case 'id':
      return skill.id === lookup.id;
    case 'public':
      return skill.isPublic && skill.name === lookup.name;
    case 'group':
      return skill.namespace === lookup.group && skill.name === lookup.name;
    case 'personal':
      return (
        skill.namespace === 'default' &&
        !skill.isPublic &&
        skill.ownerUserId === lookup.owner &&
        skill.name === lookup.name
      );
  }
}

/** The smallest arguments whose query makes every one of `lookups` (and perhaps more), no version pinned. */
export function argumentsFor(lookups: readonly ReachLookup[]): ReachArguments {
  const ids = new Set<number>();
  const names = new Set<string>();
  const groups = new Set<string>();
  const owners = new Set<number>();
  for (const lookup of lookups) {
    if (lookup.kind === 'id') {
      ids.add(lookup.id);
      continue;
    }
    names.add(lookup.name);
    if (lookup.kind === 'group') groups.add(lookup.group);
    if (lookup.kind === 'personal') owners.add(lookup.owner);
  }
  return { ids: [...ids], names: [...names], groups: [...groups], owners: [...owners], versions: [] };
}

/** What each lookup of `args` found among `skills` (the query's answer for `args`), as skill ids. */
export function answersOf(args: ReachArguments, skills: readonly SkillFacts[]): Map<string, number[]> {
  const byName = new Map<string, SkillFacts[]>();
  for (const skill of skills) {
    const named = byName.get(skill.name);
    if (named) named.push(skill);
    else byName.set(skill.name, [skill]);
  }
  const answers = new Map<string, number[]>();
  for (const lookup of lookupsOf(args)) {
    const candidates = lookup.kind === 'id' ? skills : (byName.get(lookup.name) ?? []);
    answers.set(
      lookupKey(lookup),
      candidates.filter((skill) => finds(lookup, skill)).map((skill) => skill.id),
    );
  }
  return answers;
}
