// The simple-command grammar against real bash (docs/tool-policy.md#differential-check): every
// generated command the grammar accepts is run by `bash -c` with a PATH of recording stubs, and
// must run exactly one program, named by its first word, with the other words it read as arguments.
// POLICY_DIFFERENTIAL_COMMANDS sets how many commands are generated (10,000 by default; the
// thorough run is POLICY_DIFFERENTIAL_COMMANDS=100000).
import { readSimpleCommand } from '../../src/policy';
import { agrees, generateCommand, runInBash, seededRandom } from '../support/bash-differential';

const COMMANDS = Number(process.env.POLICY_DIFFERENTIAL_COMMANDS ?? 10_000);
const SEED = 20_260_702;

describe('the simple-command grammar against bash', () => {
  it(`agrees with bash on every accepted command of ${COMMANDS} generated ones`, async () => {
    const random = seededRandom(SEED);
    const accepted: Array<{ command: string; words: string[] }> = [];
    for (let i = 0; i < COMMANDS; i++) {
      const command = generateCommand(random);
      const words = readSimpleCommand(command);
      if (words) accepted.push({ command, words });
    }
    const ran = await runInBash(
      accepted.map((a) => a.command),
      accepted.map((a) => a.words[0]),
    );
    const disagreements = accepted
      .map((a, i) => ({ ...a, ran: ran[i] }))
      .filter((a) => !agrees(a.words, a.ran))
      .slice(0, 20);
    console.log(`${COMMANDS} generated, ${accepted.length} accepted, ${disagreements.length} disagreements`);
    expect(disagreements).toEqual([]);
    // The generator reaches both sides of the grammar often enough for the agreement to mean something.
    expect(accepted.length).toBeGreaterThan(COMMANDS / 10);
    expect(accepted.length).toBeLessThan(COMMANDS * 0.9);
  }, 600_000);

  it('the oracle sees what the issue found: bash runs two programs where a word list shows one', async () => {
    const commands = ["git $'\\'';id #'", "git $'\\'' && id #'", "git $'\\''|sh #'", 'git status \\; id'];
    const ran = await runInBash(commands, []);
    expect(ran.map((r) => r.map((run) => run.name).sort())).toEqual([
      ['git', 'id'],
      ['git', 'id'],
      ['git', 'sh'], // a pipeline starts both at once
      ['git'],
    ]);
    expect(ran[3]).toEqual([{ name: 'git', args: ['status', ';', 'id'] }]);
    expect(agrees(['git', 'status', '\\;', 'id'], ran[3])).toBe(false);
    expect(commands.map(readSimpleCommand)).toEqual([null, null, null, null]);
  });
});
