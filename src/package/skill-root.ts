// Where the one skill root of an archive is, and which entries stray outside it.
import { Problem, problem, shown } from './problem';
import { ZipEntry } from './zip-reader';

export interface SkillRoot {
  /** `''` for SKILL.md at the archive root, else `<folder>/`. */
  prefix: string;
  folder: string | null;
  skillMd: ZipEntry;
}

export function findSkillRoot(entries: ZipEntry[]): { root: SkillRoot | null; problems: Problem[] } {
  const candidates = entries.filter((item) => item.pathSafe && !item.ignored && !item.directory);
  const atRoot = candidates.find((item) => item.path === 'SKILL.md');
  // Everything in the archive is inside an archive-root skill, so there is nothing outside to reject.
  if (atRoot) return { root: { prefix: '', folder: null, skillMd: atRoot }, problems: [] };

  const inFolders = candidates.filter((item) => /^[^/]+\/SKILL\.md$/.test(item.path));
  if (inFolders.length > 1) {
    const folders = inFolders.map((item) => shown(item.path.split('/')[0] + '/')).join(', ');
    const message = `The archive holds ${inFolders.length} skill folders (${folders}); a package holds exactly one.`;
    return { root: null, problems: [problem('ZIP_LAYOUT', message)] };
  }
  if (inFolders.length === 1) {
    const skillMd = inFolders[0];
    const folder = skillMd.path.split('/')[0];
    const prefix = `${folder}/`;
    const problems = entries
      .filter((item) => item.pathSafe && !item.ignored && !item.path.startsWith(prefix) && item.path !== folder)
      .map((item) => {
        const message = `The entry ${shown(item.name)} is outside the skill folder ${shown(prefix)}.`;
        return problem('ZIP_LAYOUT', message, item.name);
      });
    return { root: { prefix, folder, skillMd }, problems };
  }

  const deeper = candidates.find((item) => item.path.endsWith('/SKILL.md'));
  if (deeper) {
    const message = `SKILL.md must be at the archive root or directly inside one folder; found only ${shown(deeper.path)}.`;
    return { root: null, problems: [problem('SKILL_MD_MISSING', message, deeper.path)] };
  }
  const otherCase = candidates.find((item) => /^([^/]+\/)?skill\.md$/i.test(item.path));
  const hint = otherCase ? ` (${shown(otherCase.path)} does not count: the name is case-sensitive)` : '';
  return { root: null, problems: [problem('SKILL_MD_MISSING', `The archive has no SKILL.md${hint}.`)] };
}
