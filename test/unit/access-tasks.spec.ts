// Tasks and their tokens: who reads a task, who revokes its tokens, when a token still holds, and
// which task and skill versions a token reaches.
import {
  Actor,
  canManageTaskTokens,
  canPersistSelections,
  canReadTask,
  GroupRole,
  TaskScope,
  taskTokenHolds,
  tokenReadsTask,
  tokenSkillRef,
} from '../../src/access';

const ME = 1;
const actor = (isAdmin: boolean): Actor => ({ userId: ME, isAdmin });

describe('reading a task, revoking its tokens, persisting selections', () => {
  it.each<['default' | 'team-a', 'self' | 'other', boolean, GroupRole | null, boolean, boolean, boolean]>([
    // namespace, creator, admin, role,         read,  revoke tokens, persist
    ['default', 'self', false, null, true, true, true],
    ['default', 'other', false, null, false, false, false],
    ['default', 'other', true, null, true, true, true],
    ['team-a', 'self', false, null, true, true, true],
    ['team-a', 'other', false, null, false, false, false],
    ['team-a', 'other', false, 'Reporter', true, false, false],
    ['team-a', 'other', false, 'Developer', true, false, false],
    ['team-a', 'other', false, 'Maintainer', true, true, false],
    ['team-a', 'other', false, 'Owner', true, true, false],
    ['team-a', 'self', false, 'Reporter', true, true, true],
    ['team-a', 'other', true, null, true, true, true],
    ['team-a', 'other', true, 'Reporter', true, true, true],
  ])(
    '%s task, creator %s, admin %s, role %s: read %s, revoke %s, persist %s',
    (namespace, creator, isAdmin, role, read, revoke, persist) => {
      const task: TaskScope = { namespace, ownerUserId: creator === 'self' ? ME : 2 };
      expect(canReadTask(actor(isAdmin), task, role)).toBe(read);
      expect(canManageTaskTokens(actor(isAdmin), task, role)).toBe(revoke);
      expect(canPersistSelections(actor(isAdmin), task)).toBe(persist);
    },
  );
});

describe('a task token holds until it expires or is revoked, while its minter may read the task', () => {
  const NOW = 1_000_000;
  const groupTask: TaskScope = { namespace: 'team-a', ownerUserId: 2 };
  it.each<[string, boolean, number, boolean, TaskScope, GroupRole | null, boolean]>([
    // title,                                  revoked, expires,  admin, task,        minter role, holds
    ['a fresh token of a Reporter', false, NOW + 1, false, groupTask, 'Reporter', true],
    ['the creator of a personal task', false, NOW + 1, false, { namespace: 'default', ownerUserId: ME }, null, true],
    ['an admin minter', false, NOW + 1, true, groupTask, null, true],
    ['revoked', true, NOW + 1, false, groupTask, 'Reporter', false],
    ['expired at this instant', false, NOW, false, groupTask, 'Reporter', false],
    ['expired before', false, NOW - 1, true, groupTask, 'Owner', false],
    ['the minter lost their role', false, NOW + 1, false, groupTask, null, false],
    ['the minter is no longer admin', false, NOW + 1, false, { namespace: 'default', ownerUserId: 2 }, null, false],
  ])('%s', (_title, revoked, expiresAt, isAdmin, task, minterRole, holds) => {
    expect(taskTokenHolds({ revoked, expiresAt, minter: actor(isAdmin), task, minterRole }, NOW)).toBe(holds);
  });
});

describe('what a token reaches', () => {
  it.each<[number, number, boolean]>([
    [7, 7, true],
    [7, 8, false],
  ])('a token of task %s reads task %s: %s', (own, asked, expected) => {
    expect(tokenReadsTask({ taskId: own }, asked)).toBe(expected);
  });

  // `lint` is both preloaded (at version 2) and plain (at version 3, through another name).
  const resolved = {
    preload_skill_refs: { lint: { skill_id: 30, version: 2, name: 'preload lint' } },
    skill_refs: {
      lint: { skill_id: 30, version: 2, name: 'plain lint' },
      'lint-next': { skill_id: 30, version: 3, name: 'plain lint-next' },
      notes: { skill_id: 10, version: 1, name: 'plain notes' },
    },
  };
  it.each<[string, number, number | undefined, string | undefined]>([
    ['no version: the preload ref first', 30, undefined, 'preload lint'],
    ['a version the set names', 30, 3, 'plain lint-next'],
    ['the preload version asked for', 30, 2, 'preload lint'],
    ['a version the set does not name', 30, 1, undefined],
    ['a plain ref only', 10, undefined, 'plain notes'],
    ['its only version', 10, 1, 'plain notes'],
    ['a skill outside the set', 99, undefined, undefined],
  ])('%s', (_title, skillId, version, expected) => {
    expect(tokenSkillRef(resolved, skillId, version)?.name).toBe(expected);
  });
});
