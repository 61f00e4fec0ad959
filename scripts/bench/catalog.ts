// The people, groups and skills of the benchmark data set. Everything is computed from indexes (no
// randomness), so the 10k and 100k databases share every id of the smaller one and each selection
// is known in advance to resolve, fall back or fail.
import { createHash } from 'node:crypto';
import { manifestRevision, sortManifest, ManifestFile } from '../../src/package/manifest';

export const USERS = 1000;
/** Ids above the bootstrap admin's. */
const USER_ID_BASE = 1000;
const TOP_GROUPS = 25;
export const GROUPS = 100;
/**
 * Skill names come from a fixed catalogue, so ten times the skills means ten times the skills per
 * name: name lookups touch more rows as the registry grows, as they would in production.
 */
const NAME_POOL = 8000;
const WORDS = ['pdf', 'git', 'docx', 'sql', 'slack', 'jira', 'csv', 'http', 'k8s', 'aws'];
const BLOBS = 16;

export type GroupRole = 'Owner' | 'Maintainer' | 'Developer' | 'Reporter';

export interface User {
  id: number;
  name: string;
  apiKey: string;
}

export interface Group {
  id: number;
  name: string;
  parentId: number | null;
}

export interface Membership {
  groupId: number;
  userId: number;
  role: GroupRole;
}

export interface Skill {
  id: number;
  name: string;
  namespace: string;
  isPublic: boolean;
  ownerUserId: number | null;
  createdByUserId: number;
  latestVersion: number;
  deleted: boolean;
}

export interface Blob {
  contentHash: string;
  data: Buffer;
  skillMd: string;
  revision: string;
  manifest: ManifestFile[];
}

/** How many skills each scope holds: 5% public, 25% in groups, 70% personal. */
export interface SkillCounts {
  public: number;
  perGroup: number;
  perUser: number;
}

export function skillCounts(total: number): SkillCounts {
  return { public: total * 0.05, perGroup: (total * 0.25) / GROUPS, perUser: (total * 0.7) / USERS };
}

export const NO_SKILLS: SkillCounts = { public: 0, perGroup: 0, perUser: 0 };

export function userId(u: number): number {
  return USER_ID_BASE + u + 1;
}

export function users(): User[] {
  return Array.from({ length: USERS }, (_, u) => ({
    id: userId(u),
    name: `bench-user-${u}`,
    apiKey: 'srk_' + createHash('sha256').update(`bench-key-${u}`).digest('base64url'),
  }));
}

/** 25 top-level groups with three children each: roles in a parent hold in its children. */
export function groups(): Group[] {
  return Array.from({ length: GROUPS }, (_, g) => {
    if (g < TOP_GROUPS) return { id: g + 1, name: `org-${g}`, parentId: null };
    const parent = (g - TOP_GROUPS) % TOP_GROUPS;
    return { id: g + 1, name: `org-${parent}/team-${Math.floor((g - TOP_GROUPS) / TOP_GROUPS)}`, parentId: parent + 1 };
  });
}

export function groupName(g: number): string {
  return groups()[g].name;
}

/** Three groups per user; user g (g < 100) owns group g, so every group has an owner. */
export function memberships(): Membership[] {
  const rows: Membership[] = [];
  for (let u = 0; u < USERS; u++) {
    for (const g of groupsOf(u)) {
      rows.push({ groupId: g + 1, userId: userId(u), role: roleOf(u, g) });
    }
  }
  return rows;
}

function roleOf(u: number, g: number): GroupRole {
  if (u === g) return 'Owner';
  const r = (u * 31 + g) % 20;
  return r === 0 ? 'Maintainer' : r < 10 ? 'Developer' : 'Reporter';
}

/** Indexes of the users who may create things in group g (Developer and up), ascending. */
export function developersOf(g: number): number[] {
  return memberships()
    .filter((m) => m.groupId === g + 1 && m.role !== 'Reporter')
    .map((m) => m.userId - USER_ID_BASE - 1)
    .sort((a, b) => a - b);
}

export function groupsOf(u: number): number[] {
  return [...new Set([u % GROUPS, (u * 7 + 3) % GROUPS, (u * 13 + 5) % GROUPS])];
}

function poolName(k: number): string {
  return `${WORDS[k % WORDS.length]}-${Math.floor(k / WORDS.length)}`;
}

/**
 * The skills from scale `from` up to scale `to`, ids from `firstId`. Strides coprime with the pool
 * size keep names unique per group and per user.
 */
export function skillLayer(from: SkillCounts, to: SkillCounts, firstId: number): Skill[] {
  const rows: Skill[] = [];
  const add = (s: Omit<Skill, 'id' | 'latestVersion' | 'deleted'>): void => {
    const id = firstId + rows.length;
    // A tenth have two versions (pins have something to pin); 1% are soft-deleted.
    rows.push({ ...s, id, latestVersion: id % 10 === 0 ? 2 : 1, deleted: id % 100 === 50 });
  };
  for (let i = from.public; i < to.public; i++) {
    add({
      name: poolName(i),
      namespace: 'default',
      isPublic: true,
      ownerUserId: null,
      createdByUserId: userId(i % 100),
    });
  }
  for (const group of groups()) {
    const g = group.id - 1;
    const devs = developersOf(g);
    for (let j = from.perGroup; j < to.perGroup; j++) {
      const creator = userId(devs[j % devs.length]);
      const name = poolName((g * 389 + j * 7907) % NAME_POOL);
      add({ name, namespace: group.name, isPublic: false, ownerUserId: creator, createdByUserId: creator });
    }
  }
  for (let u = 0; u < USERS; u++) {
    for (let j = from.perUser; j < to.perUser; j++) {
      const name = poolName((u * 1543 + j * 729) % NAME_POOL);
      add({ name, namespace: 'default', isPublic: false, ownerUserId: userId(u), createdByUserId: userId(u) });
    }
  }
  return rows;
}

/** A few package bodies shared by every version: storage is content-addressed. */
export function blobs(): Blob[] {
  return Array.from({ length: BLOBS }, (_, b) => {
    const skillMd = `---\nname: bench-${b}\ndescription: A benchmark skill\n---\n${'Steps to follow.\n'.repeat(40)}`;
    const script = `#!/bin/sh\necho bench ${b}\n`;
    const data = Buffer.from(skillMd + script);
    const manifest = sortManifest([file('SKILL.md', skillMd, '644'), file('scripts/run.sh', script, '755')]);
    return { contentHash: sha256Tag(data), data, skillMd, revision: manifestRevision(manifest), manifest };
  });
}

function file(path: string, text: string, mode: '644' | '755'): ManifestFile {
  return { path, size: Buffer.byteLength(text), sha256: createHash('sha256').update(text).digest('hex'), mode };
}

function sha256Tag(data: Buffer): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
