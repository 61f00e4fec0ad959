// docs/resolution.md: a task's sources merged into exact refs, told as users' stories.
import { canonicalDigest } from '../../src/package/canonical-json';
import { toTaskSkillsDto, taskSkillsJson } from '../../src/resolution/resolution.mapper';
import type { TaskSelectionFacts } from '../../src/selection-facts/resolution-facts.repository';
import { finds } from '../../src/selection-facts/reach-lookups';
import { ghostReach, reachFilter, taskLookups, taskReach } from '../../src/selection-facts/skill-reach';
import { decideGhosts, resolutionJson, resolveTask } from '../../src/resolver';
import type {
  ExplicitSelection,
  GhostFacts,
  Identity,
  Resolution,
  ResolutionFacts,
  SkillFacts,
  StoredRef,
} from '../../src/resolver';
import { skill, user } from '../support/resolver-facts';

// Alice owns the team's group and shares the team; Bob is a Reporter there; Carol is in no group.
const ALICE = 1;
const BOB = 2;
const CAROL = 3;
const ADMIN = 9;
const identities: Record<number, Identity> = {
  [ALICE]: user(ALICE, { 'team-a': 'Owner' }),
  [BOB]: user(BOB, { 'team-a': 'Reporter' }),
  [CAROL]: user(CAROL),
  [ADMIN]: user(ADMIN, {}, true),
};

const FMT_REQUIRES = { bins: ['prettier'], env: ['CI'] };
const world: SkillFacts[] = [
  skill(10, 'notes', { owner: ALICE }),
  skill(11, 'notes', { ns: 'team-a' }),
  skill(12, 'notes', { isPublic: true }),
  skill(20, 'alice-only', { owner: ALICE }),
  skill(30, 'lint', { ns: 'team-a' }, { versions: 2 }),
  skill(31, 'lint', { isPublic: true }),
  skill(40, 'secret', { ns: 'other' }),
  skill(41, 'secret', { isPublic: true }),
  skill(
    50,
    'fmt',
    { isPublic: true },
    {
      versions: 3,
      policy: (n) => (n === 3 ? { allowed_tools: ['Read', 'Bash(prettier *)'], requires: FMT_REQUIRES } : {}),
    },
  ),
  skill(60, 'gone', { ns: 'team-a' }, { deleted: true }),
  skill(61, 'gone', { isPublic: true }),
  skill(70, 'renamed', { isPublic: true }),
  skill(90, 'deep', { ns: 'team-a/sub/leaf' }),
  skill(100, 'constructor', { isPublic: true }),
  skill(110, 'a', { isPublic: true }),
  skill(111, 'b', { isPublic: true }),
  skill(112, 'B', { isPublic: true }),
];

function ghost(
  ownerUserId: number,
  skills: string[],
  opts: { preload?: string[]; refs?: Record<string, StoredRef>; preloadRefs?: Record<string, StoredRef> } = {},
): GhostFacts {
  return {
    ownerUserId,
    skills,
    preloadSkills: opts.preload ?? [],
    skillRefs: opts.refs ?? {},
    preloadSkillRefs: opts.preloadRefs ?? {},
  };
}

const sel = (name: string, namespace: string, is_public = false, version?: number): ExplicitSelection =>
  version === undefined ? { name, namespace, is_public } : { name, namespace, is_public, version };
const requested = (...selections: ExplicitSelection[]) => ({ requestedSkillRefs: JSON.stringify(selections) });
const legacy = (...names: string[]) => ({ additionalSkills: JSON.stringify(names) });
const subscription = (ownerUserId: number, ...skillRefs: ExplicitSelection[]) => ({ ownerUserId, skillRefs });
const message = (callerUserId: number, ...selections: ExplicitSelection[]) => ({ callerUserId, selections });

/** Task 12 of team 3 in `team-a`, created by Bob, with no selections anywhere. */
function facts(overrides: Partial<ResolutionFacts> = {}): ResolutionFacts {
  return {
    taskId: 12,
    taskCreatorUserId: BOB,
    teamId: 3,
    teamNamespace: 'team-a',
    taskNamespace: 'team-a',
    ghosts: [],
    subscription: null,
    labels: {},
    message: null,
    identities,
    skills: world,
    ...overrides,
  };
}

/** What a case asserts: names, the skill id (`@version` when pinned) behind each ref, failures. */
function summary(resolution: Resolution) {
  const ids = (refs: Resolution['skill_refs']) =>
    Object.fromEntries(
      Object.entries(refs).map(([name, ref]) => [name, ref.pinned ? `${ref.skill_id}@${ref.version}` : ref.skill_id]),
    );
  return {
    skills: resolution.skills,
    preload: resolution.preload_skills,
    refs: ids(resolution.skill_refs),
    preloadRefs: ids(resolution.preload_skill_refs),
    unresolved: resolution.unresolved.map((u) => `${u.name}:${u.source}:${u.reason}`),
  };
}

interface Case {
  title: string;
  facts: Partial<ResolutionFacts>;
  expected: Partial<ReturnType<typeof summary>>;
}

const cases: Case[] = [
  // Precedence between sources.
  {
    title: 'ghost, subscription and task name one skill: the task decides both maps',
    facts: {
      ghosts: [ghost(ALICE, ['lint'], { preload: ['lint'], refs: { lint: { skill_id: 31 } } })],
      subscription: subscription(ALICE, sel('lint', 'team-a', false, 1)),
      labels: requested(sel('lint', 'team-a')),
    },
    expected: { skills: ['lint'], preload: ['lint'], refs: { lint: 30 }, preloadRefs: { lint: 30 }, unresolved: [] },
  },
  {
    title: 'the subscription beats a ghost preload, pinned',
    facts: {
      ghosts: [ghost(ALICE, ['lint'], { preload: ['lint'] })],
      subscription: subscription(ALICE, sel('lint', 'default', true), sel('fmt', 'default', true, 2)),
    },
    expected: {
      skills: ['fmt', 'lint'],
      preload: ['fmt', 'lint'],
      refs: { lint: 31, fmt: '50@2' },
      preloadRefs: { lint: 31, fmt: '50@2' },
    },
  },
  {
    title: 'a subscription pin that does not exist fails from the subscription',
    facts: { subscription: subscription(CAROL, sel('fmt', 'default', true, 9)) },
    expected: { refs: {}, unresolved: ['fmt:subscription:VERSION_NOT_FOUND'] },
  },
  {
    title: 'a failed task selection is not replaced by the ghost’s ref',
    facts: {
      ghosts: [ghost(ALICE, ['lint'], { preload: ['lint'], refs: { lint: { skill_id: 30 } } })],
      // Bob has no personal `lint`: `default` means his own, never the ghost's group skill.
      labels: requested(sel('lint', 'default')),
    },
    expected: { skills: ['lint'], preload: ['lint'], refs: {}, preloadRefs: {}, unresolved: ['lint:task:NOT_FOUND'] },
  },
  {
    title: 'a foreign group in requestedSkillRefs is FORBIDDEN, not the public skill',
    facts: { ghosts: [ghost(ALICE, ['secret'])], labels: requested(sel('secret', 'other')) },
    expected: { refs: {}, unresolved: ['secret:task:FORBIDDEN'] },
  },
  {
    title: 'a scope holding only a deleted skill answers DELETED',
    facts: { labels: requested(sel('gone', 'team-a')) },
    expected: { skills: ['gone'], refs: {}, unresolved: ['gone:task:DELETED'] },
  },
  {
    title: 'the message is the top source',
    facts: {
      ghosts: [ghost(ALICE, ['notes'])],
      labels: requested(sel('notes', 'team-a')),
      message: message(CAROL, sel('notes', 'default', true)),
    },
    expected: { refs: { notes: 12 }, preloadRefs: { notes: 12 } },
  },
  {
    title: 'a message selection acts as the caller, not the creator',
    facts: { labels: requested(sel('lint', 'team-a')), message: message(CAROL, sel('lint', 'team-a')) },
    expected: { refs: {}, unresolved: ['lint:message:FORBIDDEN'] },
  },

  // Among ghosts.
  {
    title: 'the first ghost in member order decides each map, so a later ghost can still preload',
    facts: {
      ghosts: [
        ghost(ALICE, ['notes']),
        ghost(BOB, ['notes'], { preload: ['notes'] }),
        ghost(CAROL, ['notes'], { preload: ['notes'] }),
      ],
    },
    expected: { skills: ['notes'], preload: ['notes'], refs: { notes: 10 }, preloadRefs: { notes: 11 } },
  },
  {
    title: 'a preload ref decides the preload map, the skill ref the skills map',
    facts: {
      ghosts: [
        ghost(ALICE, ['fmt'], {
          preload: ['fmt'],
          refs: { fmt: { skill_id: 50, version: 1, pinned: true } },
          preloadRefs: { fmt: { skill_id: 50 } },
        }),
      ],
    },
    expected: { refs: { fmt: '50@1' }, preloadRefs: { fmt: 50 } },
  },
  {
    title: 'without a preload ref the skill ref serves both maps',
    facts: { ghosts: [ghost(ALICE, ['fmt'], { preload: ['fmt'], refs: { fmt: { skill_id: 50, version: 2 } } })] },
    expected: { refs: { fmt: '50@2' }, preloadRefs: { fmt: '50@2' } },
  },
  {
    title: 'a preload failure shows when the skills map resolved',
    facts: {
      ghosts: [
        ghost(ALICE, ['fmt'], {
          preload: ['fmt'],
          refs: { fmt: { skill_id: 50 } },
          preloadRefs: { fmt: { skill_id: 50, version: 9, pinned: true } },
        }),
      ],
    },
    expected: {
      skills: ['fmt'],
      preload: ['fmt'],
      refs: { fmt: 50 },
      preloadRefs: {},
      unresolved: ['fmt:ghost:VERSION_NOT_FOUND'],
    },
  },
  {
    title: 'when both maps fail, the skills-map decision is the one reported',
    facts: {
      ghosts: [
        ghost(CAROL, ['lint'], { refs: { lint: { skill_id: 30 } } }),
        ghost(ALICE, ['lint'], {
          preload: ['lint'],
          preloadRefs: { lint: { skill_id: 30, version: 9, pinned: true } },
        }),
      ],
    },
    expected: { skills: ['lint'], preload: ['lint'], refs: {}, preloadRefs: {}, unresolved: ['lint:ghost:FORBIDDEN'] },
  },
  {
    title: 'a preload name missing from the ghost’s skills still enters skills',
    facts: { ghosts: [ghost(ALICE, [], { preload: ['fmt'] })] },
    expected: { skills: ['fmt'], preload: ['fmt'], refs: { fmt: 50 }, preloadRefs: { fmt: 50 } },
  },

  // Identity per source.
  {
    title: 'a shared team serves the owner’s personal skill through the owner’s ghost',
    facts: { ghosts: [ghost(ALICE, ['alice-only'], { preload: ['alice-only'] })] },
    expected: { refs: { 'alice-only': 20 }, preloadRefs: { 'alice-only': 20 }, unresolved: [] },
  },
  {
    title: 'a member’s own pick of the owner’s personal skill does not resolve',
    facts: {
      ghosts: [ghost(ALICE, ['alice-only'], { preload: ['alice-only'] })],
      labels: requested(sel('alice-only', 'default')),
    },
    expected: { refs: {}, preloadRefs: {}, unresolved: ['alice-only:task:NOT_FOUND'] },
  },
  {
    title: 'nor does the member’s legacy name',
    facts: { ghosts: [ghost(ALICE, ['alice-only'])], labels: legacy('alice-only') },
    expected: { refs: {}, unresolved: ['alice-only:task:NOT_FOUND'] },
  },
  {
    title: 'name lookups: personal shadows group shadows public, per acting identity',
    facts: {
      ghosts: [ghost(ALICE, ['notes']), ghost(BOB, ['lint'])],
      taskCreatorUserId: CAROL,
      labels: legacy('secret', 'fmt'),
    },
    expected: { refs: { notes: 10, lint: 30, secret: 41, fmt: 50 } },
  },
  {
    title: 'a non-member’s ghost does not see the group skill',
    facts: { ghosts: [ghost(CAROL, ['notes', 'lint'])] },
    expected: { refs: { notes: 12, lint: 31 } },
  },
  {
    title: 'an identity missing from the facts is a plain user',
    facts: { ghosts: [ghost(77, ['lint'], { refs: {} })] },
    expected: { refs: { lint: 31 } },
  },
  {
    title: 'an admin reads a group they are not in',
    facts: { taskCreatorUserId: ADMIN, labels: requested(sel('secret', 'other')) },
    expected: { refs: { secret: 40 } },
  },
  {
    title: 'a role in a parent group reaches the child group',
    facts: { labels: requested(sel('deep', 'team-a/sub/leaf')) },
    expected: { refs: { deep: 90 } },
  },

  // Stored refs.
  {
    title: 'a ghost ref to a deleted skill is DELETED though the name lives on elsewhere',
    facts: { ghosts: [ghost(ALICE, ['gone'], { refs: { gone: { skill_id: 60 } } })] },
    expected: { refs: {}, unresolved: ['gone:ghost:DELETED'] },
  },
  {
    title: 'a ghost ref after a rename is NAME_MISMATCH',
    facts: { ghosts: [ghost(ALICE, ['old-name'], { refs: { 'old-name': { skill_id: 70 } } })] },
    expected: { refs: {}, unresolved: ['old-name:ghost:NAME_MISMATCH'] },
  },
  {
    title: 'a pinned ghost ref to a missing version is VERSION_NOT_FOUND',
    facts: { ghosts: [ghost(ALICE, ['fmt'], { refs: { fmt: { skill_id: 50, version: 4, pinned: true } } })] },
    expected: { refs: {}, unresolved: ['fmt:ghost:VERSION_NOT_FOUND'] },
  },
  {
    title: 'a ghost ref its owner can no longer read is FORBIDDEN',
    facts: { ghosts: [ghost(CAROL, ['lint'], { refs: { lint: { skill_id: 30 } } })] },
    expected: { refs: {}, unresolved: ['lint:ghost:FORBIDDEN'] },
  },
  {
    title: 'a stored ref to an unknown id is NOT_FOUND',
    facts: { ghosts: [ghost(ALICE, ['lint'], { refs: { lint: { skill_id: 999 } } })] },
    expected: { refs: {}, unresolved: ['lint:ghost:NOT_FOUND'] },
  },

  // Team gone, labels.
  {
    title: 'a gone team: default namespace, no ghosts, the creator’s personal then public',
    facts: { teamNamespace: null, taskCreatorUserId: ALICE, labels: legacy('notes', 'lint') },
    expected: { refs: { notes: 10, lint: 31 } },
  },
  {
    title: 'a legacy additionalSkills-only task',
    facts: { labels: legacy('lint', 'notes') },
    expected: { skills: ['lint', 'notes'], preload: ['lint', 'notes'], refs: { lint: 30, notes: 11 } },
  },
  {
    title: 'an empty requestedSkillRefs falls back to additionalSkills',
    facts: { labels: { requestedSkillRefs: '[]', ...legacy('fmt') } },
    expected: { refs: { fmt: 50 } },
  },
  {
    title: 'requestedSkillRefs wins over additionalSkills',
    facts: { labels: { ...requested(sel('fmt', 'default', true)), ...legacy('lint') } },
    expected: { skills: ['fmt'], refs: { fmt: 50 } },
  },
  {
    title: 'malformed labels do not crash and count as absent',
    facts: { ghosts: [ghost(ALICE, ['fmt'])], labels: { requestedSkillRefs: '[{"na', additionalSkills: '{oops' } },
    expected: { skills: ['fmt'], refs: { fmt: 50 }, unresolved: [] },
  },
  {
    title: 'malformed requestedSkillRefs falls back to well-formed legacy names',
    facts: { labels: { requestedSkillRefs: 'not json', ...legacy('fmt') } },
    expected: { refs: { fmt: 50 } },
  },
  {
    title: 'stored refs of a bad shape are unresolved NOT_FOUND, their well-formed neighbours resolve',
    facts: {
      labels: {
        requestedSkillRefs:
          '[{"name":"fmt","namespace":"default","is_public":true},{"name":"lint"},' +
          '{"name":"notes","namespace":"team-a","is_public":"yes"},{"name":"x\\u0000","namespace":"default","is_public":true}]',
      },
    },
    expected: {
      skills: ['fmt', 'lint', 'notes', 'x\u0000'],
      refs: { fmt: 50 },
      unresolved: ['lint:task:NOT_FOUND', 'notes:task:NOT_FOUND', 'x\u0000:task:NOT_FOUND'],
    },
  },
  {
    title: 'a stored ref whose namespace no group can have is NOT_FOUND, even for an admin',
    facts: { taskCreatorUserId: ADMIN, labels: requested(sel('lint', 'Team A')) },
    expected: { refs: {}, unresolved: ['lint:task:NOT_FOUND'] },
  },
  {
    title: 'legacy names no skill can have are NOT_FOUND; entries that name nothing are skipped',
    facts: { labels: { additionalSkills: '["lint", 7, "", "Not A Name", "x\\u0000"]' } },
    expected: {
      skills: ['Not A Name', 'lint', 'x\u0000'],
      refs: { lint: 30 },
      unresolved: ['Not A Name:task:NOT_FOUND', 'x\u0000:task:NOT_FOUND'],
    },
  },
  {
    title: 'a requested version in task labels never pins',
    facts: { labels: { requestedSkillRefs: '[{"name":"fmt","namespace":"default","is_public":true,"version":1}]' } },
    expected: { refs: { fmt: 50 } },
  },

  // Output shape.
  {
    title: 'outputs are sorted by code unit and deduplicated',
    facts: {
      ghosts: [ghost(ALICE, ['b', 'a', 'b', 'B'], { preload: ['b', 'b'] }), ghost(BOB, ['a'], { preload: ['a'] })],
      labels: requested(sel('zzz', 'default', true), sel('zzz', 'team-a')),
    },
    expected: {
      skills: ['B', 'a', 'b', 'zzz'],
      preload: ['a', 'b', 'zzz'],
      unresolved: ['zzz:task:NOT_FOUND'],
    },
  },
  {
    title: 'within one source a repeated name keeps its first entry',
    facts: { labels: requested(sel('lint', 'default', true), sel('lint', 'team-a')) },
    expected: { refs: { lint: 31 } },
  },
  {
    title: 'names that are Object members resolve like any other',
    facts: { ghosts: [ghost(ALICE, ['constructor', 'toString'], { preload: ['constructor'] })] },
    expected: {
      skills: ['constructor', 'toString'],
      refs: { constructor: 100 },
      preloadRefs: { constructor: 100 },
      unresolved: ['toString:ghost:NOT_FOUND'],
    },
  },
];

/** The fields the fingerprint covers, written out by the generic canonical JSON. */
function hashed(r: Resolution): Omit<Resolution, 'fingerprint' | 'user_selected_skills'> {
  const { fingerprint: _, user_selected_skills: __, ...rest } = r;
  return rest;
}

/** The same facts as the task statement gives them (for the reach of each part). */
function selectionFacts(f: ResolutionFacts): TaskSelectionFacts {
  return {
    task: { id: f.taskId, teamId: f.teamId, ownerUserId: f.taskCreatorUserId, namespace: 'team-a', labels: f.labels },
    team: f.teamNamespace === null ? null : { id: f.teamId, namespace: f.teamNamespace },
    ghosts: f.ghosts,
    subscription: f.subscription,
    identities: f.identities,
    ghostIds: [],
    bindings: [...(f.bindings ?? [])],
  };
}

describe('resolveTask', () => {
  it.each(cases)('$title', ({ facts: overrides, expected }) => {
    const actual = summary(resolveTask(facts(overrides)));
    expect(actual).toEqual({ ...actual, ...expected });
  });

  // How a task of a known team is resolved: the team's ghosts decided once, over the skills they
  // reach, and only the skills the task's own selections reach looked up.
  it.each(cases)("a team's decisions, kept and reused, answer the same byte for byte: $title", ({ facts: over }) => {
    const f = facts(over);
    const full = resolveTask(f);
    const selection = selectionFacts(f);
    const team = decideGhosts({ ...f, skills: f.skills.filter(reachFilter(ghostReach(selection))) });
    const own = f.skills.filter(reachFilter(taskReach(selection, f.message)));
    const first = resolveTask({ ...f, skills: own }, team);
    const again = resolveTask({ ...f, skills: own }, team);
    for (const split of [first, again]) {
      expect(split).toEqual(full);
      expect(split.fingerprint).toBe(full.fingerprint);
      expect(taskSkillsJson(split)).toBe(JSON.stringify(toTaskSkillsDto(full)));
    }
  });

  // The kept skill lookups serve a task the skills its own sources' exact lookups find (not every
  // name in every scope): the resolver looks at no other.
  it.each(cases)(
    "the exact lookups of the task's own sources answer the same byte for byte: $title",
    ({ facts: over }) => {
      const f = facts(over);
      const full = resolveTask(f);
      const selection = selectionFacts(f);
      const team = decideGhosts({ ...f, skills: f.skills.filter(reachFilter(ghostReach(selection))) });
      const lookups = taskLookups(selection, f.message);
      const own = f.skills.filter((s) => lookups.some((lookup) => finds(lookup, s)));
      const split = resolveTask({ ...f, skills: own }, team);
      expect(split).toEqual(full);
      expect(taskSkillsJson(split)).toBe(JSON.stringify(toTaskSkillsDto(full)));
    },
  );

  it.each(cases)(
    'the answer is written as JSON.stringify writes it, and hashed as written: $title',
    ({ facts: over }) => {
      const r = resolveTask(facts(over));
      for (const part of [r.skills, r.preload_skills, r.skill_refs, r.preload_skill_refs, r.unresolved]) {
        expect(resolutionJson(part)).toBe(JSON.stringify(part));
      }
      expect(taskSkillsJson(r)).toBe(JSON.stringify(toTaskSkillsDto(r)));
      expect(r.fingerprint).toBe(canonicalDigest(hashed(r)));
    },
  );

  it('names that are array indices are written where JSON.stringify puts them (first, by value)', () => {
    const numbered = [skill(200, '7', { isPublic: true }), skill(201, '100', { isPublic: true })];
    const r = resolveTask(facts({ labels: legacy('100', 'a', '7'), skills: [...world, ...numbered] }));
    expect(r.skills).toEqual(['100', '7', 'a']);
    expect(Object.keys(r.skill_refs)).toEqual(['7', '100', 'a']);
    expect(resolutionJson(r.skill_refs)).toBe(JSON.stringify(r.skill_refs));
    expect(r.fingerprint).toBe(canonicalDigest(hashed(r)));
  });

  it('answers the docs/resolution.md#output shape, the fingerprint hashing exactly its other fields', () => {
    const resolution = resolveTask(
      facts({
        ghosts: [ghost(ALICE, ['lint', 'gone'], { refs: { gone: { skill_id: 60 } } })],
        labels: requested(sel('fmt', 'default', true)),
      }),
    );
    const { fingerprint, user_selected_skills, ...hashed } = resolution;
    expect(hashed).toEqual({
      task_id: 12,
      team_id: 3,
      team_namespace: 'team-a',
      skills: ['fmt', 'gone', 'lint'],
      preload_skills: ['fmt'],
      skill_refs: {
        fmt: {
          skill_id: 50,
          namespace: 'default',
          is_public: true,
          version: 3,
          content_hash: 'sha256:50-v3',
          pinned: false,
          tag: null,
          status: 'active',
          allowed_tools: ['Read', 'Bash(prettier *)'],
          requires: FMT_REQUIRES,
        },
        lint: {
          skill_id: 30,
          namespace: 'team-a',
          is_public: false,
          version: 2,
          content_hash: 'sha256:30-v2',
          pinned: false,
          tag: null,
          status: 'active',
          allowed_tools: null,
          requires: { bins: [], env: [] },
        },
      },
      preload_skill_refs: {
        fmt: {
          skill_id: 50,
          namespace: 'default',
          is_public: true,
          version: 3,
          content_hash: 'sha256:50-v3',
          pinned: false,
          tag: null,
          status: 'active',
          allowed_tools: ['Read', 'Bash(prettier *)'],
          requires: FMT_REQUIRES,
        },
      },
      unresolved: [{ name: 'gone', source: 'ghost', reason: 'DELETED' }],
    });
    expect(fingerprint).toBe(canonicalDigest(hashed));
    expect(user_selected_skills).toEqual(['fmt']);
  });

  it('every preload name is in skills and every resolved name has its refs', () => {
    const r = resolveTask(
      facts({
        ghosts: [ghost(ALICE, ['notes', 'lint'], { preload: ['notes', 'nope'] })],
        subscription: subscription(BOB, sel('fmt', 'default', true)),
      }),
    );
    for (const name of r.preload_skills) expect(r.skills).toContain(name);
    const failed = new Set(r.unresolved.map((u) => u.name));
    for (const name of r.skills) expect(name in r.skill_refs || failed.has(name)).toBe(true);
    for (const name of r.preload_skills) expect(name in r.preload_skill_refs || failed.has(name)).toBe(true);
  });

  it('a gone team answers the task’s team id and the default namespace', () => {
    const r = resolveTask(facts({ teamNamespace: null, teamId: 44 }));
    expect([r.team_id, r.team_namespace, r.skills]).toEqual([44, 'default', []]);
  });

  it('a new version changes the ref’s version and content hash, and the fingerprint', () => {
    const before = resolveTask(facts({ labels: legacy('lint') }));
    const published = world.map((s) => (s.id === 30 ? skill(30, 'lint', { ns: 'team-a' }, { versions: 3 }) : s));
    const after = resolveTask(facts({ labels: legacy('lint'), skills: published }));
    expect(before.skill_refs.lint).toMatchObject({ version: 2, content_hash: 'sha256:30-v2' });
    expect(after.skill_refs.lint).toMatchObject({ version: 3, content_hash: 'sha256:30-v3' });
    expect(after.fingerprint).not.toBe(before.fingerprint);
  });

  it('the tool policy is part of the fingerprint: a policy that differs alone changes it', () => {
    const base = { labels: legacy('lint') };
    const restricted = world.map((s) =>
      s.id === 30
        ? skill(30, 'lint', { ns: 'team-a' }, { versions: 2, policy: () => ({ allowed_tools: ['Read'] }) })
        : s,
    );
    const requiring = world.map((s) =>
      s.id === 30
        ? skill(30, 'lint', { ns: 'team-a' }, { versions: 2, policy: () => ({ requires: { bins: ['jq'], env: [] } }) })
        : s,
    );
    const fingerprints = [world, restricted, requiring].map(
      (skills) => resolveTask(facts({ ...base, skills })).fingerprint,
    );
    expect(new Set(fingerprints).size).toBe(3);
    expect(resolveTask(facts({ ...base, skills: restricted })).skill_refs.lint).toMatchObject({
      content_hash: 'sha256:30-v2',
      allowed_tools: ['Read'],
    });
  });

  it('a pinned ref does not move when a new version is published', () => {
    const pinned = { labels: {}, subscription: subscription(BOB, sel('lint', 'team-a', false, 1)) };
    const published = world.map((s) => (s.id === 30 ? skill(30, 'lint', { ns: 'team-a' }, { versions: 3 }) : s));
    expect(resolveTask(facts({ ...pinned, skills: published })).fingerprint).toBe(
      resolveTask(facts(pinned)).fingerprint,
    );
  });

  it('the fingerprint is the same with no message and with an empty one', () => {
    const base = { ghosts: [ghost(ALICE, ['notes'])], labels: legacy('lint') };
    const get = resolveTask(facts(base));
    const request = resolveTask(facts({ ...base, message: message(BOB) }));
    expect(request.fingerprint).toBe(get.fingerprint);
    expect(request).toEqual(get);
  });

  it('the fingerprint does not depend on the order facts arrive in', () => {
    const base = { ghosts: [ghost(ALICE, ['notes', 'lint'])], labels: legacy('fmt', 'gone') };
    expect(resolveTask(facts({ ...base, skills: [...world].reverse() })).fingerprint).toBe(
      resolveTask(facts(base)).fingerprint,
    );
  });

  it('a message changes the fingerprint when it changes a ref', () => {
    const base = { labels: legacy('lint') };
    const withMessage = resolveTask(facts({ ...base, message: message(BOB, sel('lint', 'default', true)) }));
    expect(withMessage.fingerprint).not.toBe(resolveTask(facts(base)).fingerprint);
  });

  it.each<[string, Partial<ResolutionFacts>, string[]]>([
    ['none without selections', { ghosts: [ghost(ALICE, ['notes'], { preload: ['notes'] })] }, []],
    ['legacy names in label order', { labels: legacy('lint', 'fmt') }, ['lint', 'fmt']],
    [
      'task refs in label order, then the message’s, each name once',
      {
        ghosts: [ghost(ALICE, ['ghost-only'], { preload: ['ghost-only'] })],
        labels: requested(sel('notes', 'team-a'), sel('lint', 'team-a')),
        message: message(BOB, sel('fmt', 'default', true), sel('notes', 'default', true), sel('fmt', 'default', true)),
      },
      ['notes', 'lint', 'fmt'],
    ],
    ['failed selections are still listed', { labels: requested(sel('secret', 'other')) }, ['secret']],
  ])('user_selected_skills: %s', (_title, overrides, expected) => {
    expect(resolveTask(facts(overrides)).user_selected_skills).toEqual(expected);
  });
});
