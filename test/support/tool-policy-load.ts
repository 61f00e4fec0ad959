// A task whose resolved set holds many skills, each allowing Bash with many patterns that need a full
// scan of the command: the heaviest tool-check a caller can ask for (docs/tool-policy.md#budget).
import { Scenario } from './scenario';
import { Caller, publishSkill } from './skills';

/** A simple command of exactly 16 KiB that no pattern below matches. */
export const COMMAND_16_KIB = `git ${'a'.repeat(16 * 1024 - 4)}`;

/** Ghosts hold at most 100 skills, so the set is spread over bots of one team. */
const SKILLS_PER_GHOST = 100;

export interface HeavyTask {
  taskId: number;
  /** The skill names, sorted (as `denied_by` lists them). */
  names: string[];
}

/**
 * Publishes `skills` skills named `<prefix>-<i>` whose allowed-tools is `Bash(*c1*|*c2*|...)` with
 * `patterns` distinct CJK characters (none in the command, so each pattern scans it all), and a
 * task of a team whose bots' ghosts list them all.
 */
export async function heavyPolicyTask(
  s: Scenario,
  caller: Caller,
  prefix: string,
  skills: number,
  patterns: number,
): Promise<HeavyTask> {
  const names = Array.from({ length: skills }, (_, i) => `${prefix}-${String(i).padStart(3, '0')}`);
  let next = 0;
  // Four uploads at once: what one user may have in progress.
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < skills) {
        const i = next++;
        const body = Array.from({ length: patterns }, (_, j) => `*${String.fromCodePoint(0x4e00 + i * patterns + j)}*`);
        const frontmatter = `name: ${names[i]}\ndescription: A skill of ${patterns} patterns.\nallowed-tools: Bash(${body.join('|')})`;
        await publishSkill(s.t, caller, names[i], {}, { frontmatter });
      }
    }),
  );
  const bots: number[] = [];
  for (let from = 0; from < skills; from += SKILLS_PER_GHOST) {
    const ghost = await s.ghost(caller, {
      name: `${prefix}-ghost-${from}`,
      skills: names.slice(from, from + SKILLS_PER_GHOST),
    });
    bots.push((await s.bot(caller, `${prefix}-bot-${from}`, ghost.id)).id);
  }
  const team = await s.team(caller, `${prefix}-team`, bots);
  const task = await s.task(caller, { team_id: team.id });
  return { taskId: task.id, names };
}
