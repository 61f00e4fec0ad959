// The settings of imports from git (docs/configuration.md#git-imports) and the skills a git folder
// holds (docs/publishing.md#importing-from-git), as tables of cases.
import { DomainError } from '../../src/common/errors/domain-error';
import { ConfigError, configSecrets, loadConfig } from '../../src/config/app-config';
import { folderSkills, MAX_SKILLS_PER_IMPORT, skillArchive } from '../../src/git-sources/folder-skills';
import type { GitFile, GitFolder } from '../../src/git-sources/git/git-remote.types';
import { inspectPackage } from '../../src/package/inspect-package';
import { DEFAULT_LIMITS } from '../support/package-limits';

describe('git import settings', () => {
  it('default to no host allowed, no credentials, 60 s and 4 x MAX_EXPANDED_BYTES', () => {
    expect(loadConfig({}).git).toEqual({
      allowedHosts: [],
      credentials: new Map(),
      timeoutMs: 60_000,
      maxFetchBytes: 4 * 64 * 1024 * 1024,
    });
    expect(loadConfig({ MAX_EXPANDED_BYTES: '1048576' }).git.maxFetchBytes).toBe(4 * 1048576);
  });

  it.each([
    ['github.com', ['github.com']],
    ['GitHub.com, git.example.com:8443', ['github.com', 'git.example.com:8443']],
    ['http://127.0.0.1:9418,https://git.example.com', ['http://127.0.0.1:9418', 'git.example.com']],
    ['[::1]:3000, github.com, github.com', ['[::1]:3000', 'github.com']],
    [' , ', []],
  ])('GIT_ALLOWED_HOSTS=%j allows %j', (value, hosts) => {
    expect(loadConfig({ GIT_ALLOWED_HOSTS: value }).git.allowedHosts).toEqual(hosts);
  });

  it.each(['github.com/acme', 'ssh://github.com', 'user@github.com', 'git hub.com', '*.example.com'])(
    'GIT_ALLOWED_HOSTS=%j stops the boot',
    (value) => {
      expect(() => loadConfig({ GIT_ALLOWED_HOSTS: value })).toThrow(ConfigError);
    },
  );

  it('reads GIT_CREDENTIALS per host, masks the tokens, and never names one in a problem', () => {
    const config = loadConfig({
      GIT_CREDENTIALS: 'github.com=ghp_0123456789abcdef, Git.Example.com:8443=glpat-abcdefgh',
    });
    expect([...config.git.credentials]).toEqual([
      ['github.com', 'ghp_0123456789abcdef'],
      ['git.example.com:8443', 'glpat-abcdefgh'],
    ]);
    expect(configSecrets(config)).toEqual(expect.arrayContaining(['ghp_0123456789abcdef', 'glpat-abcdefgh']));
    for (const value of ['github.com', 'github.com=', 'github.com=short', 'https://github.com/x=ghp_0123456789']) {
      let problems: string[] = [];
      try {
        loadConfig({ GIT_CREDENTIALS: value });
      } catch (err) {
        problems = (err as ConfigError).problems;
      }
      expect(problems).toHaveLength(1);
      expect(problems[0]).not.toContain('short');
      expect(problems[0]).not.toContain('ghp_');
    }
  });

  it.each([[{ GIT_IMPORT_TIMEOUT_MS: '999' }], [{ GIT_IMPORT_TIMEOUT_MS: 'soon' }], [{ GIT_MAX_FETCH_BYTES: '100' }]])(
    '%j stops the boot',
    (env) => {
      expect(() => loadConfig(env)).toThrow(ConfigError);
    },
  );
});

const SKILL_MD = (name: string) => Buffer.from(`---\nname: ${name}\ndescription: The ${name} skill.\n---\n# ${name}\n`);

function file(path: string, bytes: Buffer | string = 'x', mode = 0o100644): GitFile {
  return { path, mode, bytes: Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes) };
}

function folder(files: GitFile[], more: Partial<GitFolder> = {}): GitFolder {
  return {
    commit: 'a'.repeat(40),
    treeId: 'b'.repeat(40),
    files,
    symlinks: [],
    submodules: [],
    lfsPointers: [],
    ...more,
  };
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    return (err as DomainError).code;
  }
  return undefined;
}

describe('the skills of a git folder', () => {
  it.each([
    [
      'a folder with SKILL.md is one skill, whatever its children hold',
      folder([file('SKILL.md', SKILL_MD('a')), file('b/SKILL.md', SKILL_MD('b'))]),
      'skills/a',
      [{ path: 'skills/a', folderName: 'a', files: ['SKILL.md', 'b/SKILL.md'] }],
    ],
    [
      'the root of the repository: no folder name',
      folder([file('SKILL.md', SKILL_MD('a'))]),
      '',
      [{ path: '', folderName: '', files: ['SKILL.md'] }],
    ],
    [
      'else each child folder with SKILL.md, in byte order; others and loose files are left out',
      folder([
        file('README.md'),
        file('zeta/SKILL.md', SKILL_MD('zeta')),
        file('alpha/SKILL.md', SKILL_MD('alpha')),
        file('alpha/.DS_Store'),
        file('alpha/__MACOSX/x'),
        file('alpha/run.sh', '#!/bin/sh\n', 0o100755),
        file('docs/guide.md'),
        file('.git/SKILL.md'),
      ]),
      'skills',
      [
        { path: 'skills/alpha', folderName: 'alpha', files: ['SKILL.md', 'run.sh'] },
        { path: 'skills/zeta', folderName: 'zeta', files: ['SKILL.md'] },
      ],
    ],
  ])('%s', (_, given, path, expected) => {
    const skills = folderSkills(given, path, 512);
    expect(skills.map((s) => ({ path: s.path, folderName: s.folderName, files: s.files.map((f) => f.path) }))).toEqual(
      expected,
    );
  });

  it('symbolic links are ZIP_SYMLINK problems and submodules SUBMODULE_SKIPPED warnings, each in its skill', () => {
    const [a, b] = folderSkills(
      folder([file('a/SKILL.md', SKILL_MD('a')), file('b/SKILL.md', SKILL_MD('b'))], {
        symlinks: ['a/link', 'b/.git/x'],
        submodules: ['b/vendor/lib'],
      }),
      '',
      512,
    );
    expect(a.problems).toEqual([expect.objectContaining({ code: 'ZIP_SYMLINK', field: 'link' })]);
    expect(a.warnings).toEqual([]);
    expect(b.problems).toEqual([]);
    expect(b.warnings).toEqual([expect.objectContaining({ code: 'SUBMODULE_SKIPPED', field: 'vendor/lib' })]);
  });

  it.each([
    [
      'an LFS pointer anywhere',
      folder([file('SKILL.md', SKILL_MD('a'))], { lfsPointers: ['big.bin'] }),
      'GIT_LFS_UNSUPPORTED',
    ],
    [
      `more than ${MAX_SKILLS_PER_IMPORT} skills`,
      folder(Array.from({ length: MAX_SKILLS_PER_IMPORT + 1 }, (_, i) => file(`s${i}/SKILL.md`, SKILL_MD(`s${i}`)))),
      'GIT_TOO_MANY_SKILLS',
    ],
    ['no skill at all', folder([file('README.md'), file('docs/SKILL.txt')]), 'SKILL_INVALID'],
  ])('%s', (_, given, code) => {
    expect(codeOf(() => folderSkills(given, '', 512))).toBe(code);
  });

  it(`exactly ${MAX_SKILLS_PER_IMPORT} skills are taken`, () => {
    const given = folder(
      Array.from({ length: MAX_SKILLS_PER_IMPORT }, (_, i) => file(`s${i}/SKILL.md`, SKILL_MD(`s${i}`))),
    );
    expect(folderSkills(given, '', 512)).toHaveLength(MAX_SKILLS_PER_IMPORT);
  });

  it('more files than a package may hold: ZIP_TOO_MANY_ENTRIES, and nothing is read', () => {
    const [skill] = folderSkills(folder([file('SKILL.md', SKILL_MD('a')), file('b'), file('c')]), '', 2);
    expect(skill.files).toEqual([]);
    expect(skill.problems).toEqual([expect.objectContaining({ code: 'ZIP_TOO_MANY_ENTRIES' })]);
  });

  it('the archive of a skill reads as an upload of its folder: the same files, modes and revision', () => {
    const [skill] = folderSkills(
      folder([file('pdf/SKILL.md', SKILL_MD('pdf')), file('pdf/run.sh', '#!/bin/sh\n', 0o100755)]),
      'skills',
      512,
    );
    const inspection = inspectPackage(skillArchive(skill), DEFAULT_LIMITS);
    expect(inspection.errors).toEqual([]);
    expect(inspection.name).toBe('pdf');
    expect(inspection.files.map((f) => [f.path, f.mode])).toEqual([
      ['SKILL.md', '644'],
      ['run.sh', '755'],
    ]);
    // A folder whose name is not the skill's: NAME_MISMATCH, as for an upload.
    const [other] = folderSkills(folder([file('SKILL.md', SKILL_MD('pdf'))]), 'tools/other', 512);
    expect(inspectPackage(skillArchive(other), DEFAULT_LIMITS).errors).toEqual([
      expect.objectContaining({ code: 'NAME_MISMATCH' }),
    ]);
  });
});
