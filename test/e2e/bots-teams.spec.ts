// Bots point at ghosts, teams list bots: ids in bodies must be readable (404 like a missing id),
// member rules, and deletes refused while something active still uses the thing.
import {
  createBot,
  createBotWithGhost,
  createGhost,
  createGroup,
  createSubscription,
  createTeam,
  del,
  get,
  post,
  put,
  resourceRowCounts,
  sameBody,
} from '../support/resources';
import { ADMIN_KEY, createUser, expectError, startTestApp, TestApp, TestUser } from '../support/test-app';

describe('bots and teams: references and the delete protection', () => {
  let t: TestApp;
  let alice: TestUser;
  let bob: TestUser;
  let owner: TestUser;
  let maint: TestUser;
  let dev: TestUser;
  let rep: TestUser;
  let groupGhost: number;
  let alicesGhost: number;

  beforeAll(async () => {
    t = await startTestApp();
    [alice, bob, owner, maint, dev, rep] = await Promise.all(
      ['alice', 'bob', 'owner', 'maint', 'dev', 'rep'].map((n) => createUser(t, n)),
    );
    await createGroup(t, owner, 'team-a', [
      [maint, 'Maintainer'],
      [dev, 'Developer'],
      [rep, 'Reporter'],
    ]);
    groupGhost = (await createGhost(t, owner, { name: 'group-ghost', namespace: 'team-a' })).id;
    alicesGhost = (await createGhost(t, alice, { name: 'alices-ghost' })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  describe('bots', () => {
    it('a bot may use any ghost its creator reads: a Reporter makes a personal bot on a group ghost', async () => {
      const bot = await createBot(t, rep, { name: 'reporters-bot', ghost_id: groupGhost });
      expect(bot).toEqual(
        expect.objectContaining({ namespace: 'default', owner_user_id: rep.id, ghost_id: groupGhost }),
      );
    });

    it('a ghost_id that is missing, deleted or unreadable is 404 like GET /ghosts/{id}, and stores nothing', async () => {
      const gone = await createGhost(t, bob, { name: 'gone' });
      expect((await del(t, bob, 'ghosts', gone.id)).status).toBe(204);
      const missing = await get(t, bob, 'ghosts/999999');
      const before = await resourceRowCounts(t);
      for (const ghostId of [999999, gone.id, alicesGhost, groupGhost]) {
        const res = await post(t, bob, 'bots', { name: 'nope', ghost_id: ghostId });
        expectError(res, 404, 'NOT_FOUND');
        expect(sameBody(res)).toEqual(sameBody(missing));
      }
      expect(await resourceRowCounts(t)).toEqual(before);
    });

    it('PUT may keep a ghost the caller cannot read, but not switch to one', async () => {
      const bot = await createBot(t, dev, { name: 'on-alices', namespace: 'team-a', ghost_id: groupGhost });
      // An admin points the group bot at alice's personal ghost; the Maintainer cannot read that ghost.
      expect((await put(t, ADMIN_KEY, 'bots', bot.id, { name: 'on-alices', ghost_id: alicesGhost })).status).toBe(200);
      const renamed = await put(t, maint, 'bots', bot.id, { name: 'renamed', ghost_id: alicesGhost });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual(
        expect.objectContaining({ name: 'renamed', ghost_id: alicesGhost, owner_user_id: dev.id }),
      );
      const other = await createGhost(t, bob, { name: 'bobs-ghost' });
      const refused = await put(t, maint, 'bots', bot.id, { name: 'renamed', ghost_id: other.id });
      expect(sameBody(refused)).toEqual(sameBody(await get(t, maint, 'ghosts/999999')));
      expect((await put(t, maint, 'bots', bot.id, { name: 'back', ghost_id: groupGhost })).body.ghost_id).toBe(
        groupGhost,
      );
    });

    it.each([
      ['no ghost_id', {}],
      ['a ghost_id of 0', { ghost_id: 0 }],
      ['a ghost_id as a string', { ghost_id: '1' }],
      ['a fractional ghost_id', { ghost_id: 1.5 }],
      ['a ghost_id past 32 bits', { ghost_id: 2 ** 31 }],
    ])('%s is 400 VALIDATION_FAILED and stores nothing', async (_case, change) => {
      const before = await resourceRowCounts(t);
      expectError(await post(t, alice, 'bots', { name: 'bad', ...change }), 400, 'VALIDATION_FAILED');
      expect(await resourceRowCounts(t)).toEqual(before);
    });
  });

  describe('teams', () => {
    it('keeps its members in the order given', async () => {
      const bots = [];
      for (const name of ['c', 'a', 'b']) bots.push((await createBotWithGhost(t, alice, `order-${name}`)).botId);
      const team = await createTeam(t, alice, { name: 'ordered', members: bots.map((bot_id) => ({ bot_id })) });
      expect(team.members).toEqual(bots.map((bot_id) => ({ bot_id })));
      const reversed = [...bots].reverse().map((bot_id) => ({ bot_id }));
      expect((await put(t, alice, 'teams', team.id, { name: 'ordered', members: reversed })).body.members).toEqual(
        reversed,
      );
      expect((await get(t, alice, `teams/${team.id}`)).body.members).toEqual(reversed);
    });

    it('a bot that is missing, deleted or unreadable is 404 like GET /bots/{id}, and stores nothing', async () => {
      const { botId: mine } = await createBotWithGhost(t, bob, 'bobs-member');
      const { botId: deleted } = await createBotWithGhost(t, bob, 'deleted-member');
      expect((await del(t, bob, 'bots', deleted)).status).toBe(204);
      const { botId: alices } = await createBotWithGhost(t, alice, 'alices-member');
      const missing = await get(t, bob, 'bots/999999');
      const before = await resourceRowCounts(t);
      for (const other of [999999, deleted, alices]) {
        const res = await post(t, bob, 'teams', { name: 'nope', members: [{ bot_id: mine }, { bot_id: other }] });
        expectError(res, 404, 'NOT_FOUND');
        expect(sameBody(res)).toEqual(sameBody(missing));
      }
      expect(await resourceRowCounts(t)).toEqual(before);
    });

    it('PUT may keep bots the caller cannot read, but not add one', async () => {
      const { botId: groupBot } = await createBotWithGhost(t, dev, 'group-member', 'team-a');
      const { botId: devsOwn } = await createBotWithGhost(t, dev, 'devs-own');
      const team = await createTeam(t, dev, {
        name: 'mixed',
        namespace: 'team-a',
        members: [{ bot_id: devsOwn }, { bot_id: groupBot }],
      });
      // The Maintainer cannot read dev's personal bot, yet may reorder the team and keep it.
      expectError(await get(t, maint, `bots/${devsOwn}`), 404, 'NOT_FOUND');
      const reordered = await put(t, maint, 'teams', team.id, {
        name: 'mixed',
        members: [{ bot_id: groupBot }, { bot_id: devsOwn }],
      });
      expect(reordered.status).toBe(200);
      expect(reordered.body.members).toEqual([{ bot_id: groupBot }, { bot_id: devsOwn }]);
      const { botId: maintsOwn } = await createBotWithGhost(t, maint, 'maints-own');
      expect((await put(t, maint, 'teams', team.id, { name: 'mixed', members: [{ bot_id: maintsOwn }] })).status).toBe(
        200,
      );
      // Once dropped, dev's bot counts as new again.
      const readd = await put(t, maint, 'teams', team.id, { name: 'mixed', members: [{ bot_id: devsOwn }] });
      expectError(readd, 404, 'NOT_FOUND');
    });

    const members = (n: number) => Array.from({ length: n }, (_, i) => ({ bot_id: i + 1 }));
    it.each([
      ['21 members', { members: members(21) }, ['members must contain no more than 20 elements']],
      ['no members', { members: [] }, ['members must contain at least 1 elements']],
      ['members missing', { members: undefined }, undefined],
      ['a repeated bot', { members: [{ bot_id: 1 }, { bot_id: 2 }, { bot_id: 1 }] }, ['members must not repeat a bot']],
      [
        'an unknown field in a member',
        { members: [{ bot_id: 1, role: 'lead' }] },
        ['members.0.role: property role should not exist'],
      ],
      ['a member without bot_id', { members: [{}] }, undefined],
      ['a bot_id of 0', { members: [{ bot_id: 0 }] }, ['members.0.bot_id: bot_id must not be less than 1']],
      ['members that is not a list', { members: { bot_id: 1 } }, undefined],
    ])('%s is 400 VALIDATION_FAILED and stores nothing', async (_case, change, messages) => {
      const before = await resourceRowCounts(t);
      const res = await post(t, alice, 'teams', { name: 'bad', ...change });
      const body = expectError(res, 400, 'VALIDATION_FAILED');
      if (messages) expect(body.message).toEqual(messages);
      expect(await resourceRowCounts(t)).toEqual(before);
    });
  });

  it('a bot listed by active teams answers 409 IN_USE listing them; deleting a team is always allowed', async () => {
    const { ghostId, botId } = await createBotWithGhost(t, dev, 'busy', 'team-a');
    const first = await createTeam(t, dev, { name: 'first', namespace: 'team-a', members: [{ bot_id: botId }] });
    const { botId: other } = await createBotWithGhost(t, dev, 'other', 'team-a');
    const second = await createTeam(t, maint, {
      name: 'second',
      namespace: 'team-a',
      members: [{ bot_id: other }, { bot_id: botId }],
    });
    const sub = await createSubscription(t, dev, { name: 'on-first', team_id: first.id, skill_refs: [] });

    expect(expectError(await del(t, dev, 'bots', botId), 409, 'IN_USE').details).toEqual({
      teams: [first.id, second.id],
    });
    expect(expectError(await del(t, dev, 'ghosts', ghostId), 409, 'IN_USE').details).toEqual({ bots: [botId] });
    // Teams go regardless of subscriptions and tasks on them.
    expect((await del(t, dev, 'teams', first.id)).status).toBe(204);
    expect((await get(t, dev, `subscriptions/${sub.id}`)).body.team_id).toBe(first.id);
    expect(expectError(await del(t, dev, 'bots', botId), 409, 'IN_USE').details).toEqual({ teams: [second.id] });
    // Taking the bot out of the team frees it.
    expect((await put(t, maint, 'teams', second.id, { name: 'second', members: [{ bot_id: other }] })).status).toBe(
      200,
    );
    expect((await del(t, dev, 'bots', botId)).status).toBe(204);
    expect((await del(t, dev, 'ghosts', ghostId)).status).toBe(204);
  });

  it('concurrent deletes and saves never leave an active bot on a deleted ghost, or a team on a deleted bot', async () => {
    // Either the save came first (the delete is refused) or the delete did (the save is refused).
    const outcomes = (saved: number) => (saved === 201 ? [201, 409] : [204, 404]);
    for (let round = 0; round < 10; round++) {
      const ghost = await createGhost(t, alice, { name: `race-${round}` });
      const [bot, ghostDeleted] = await Promise.all([
        post(t, alice, 'bots', { name: `race-${round}`, ghost_id: ghost.id }),
        del(t, alice, 'ghosts', ghost.id),
      ]);
      expect([bot.status, ghostDeleted.status].sort()).toEqual(outcomes(bot.status));

      const { botId } = await createBotWithGhost(t, alice, `race-member-${round}`);
      const [team, botDeleted] = await Promise.all([
        post(t, alice, 'teams', { name: `race-${round}`, members: [{ bot_id: botId }] }),
        del(t, alice, 'bots', botId),
      ]);
      expect([team.status, botDeleted.status].sort()).toEqual(outcomes(team.status));
    }
  });
});
