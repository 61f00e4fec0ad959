// Skill packages as a publisher sees them: the manifest and revision of good packages, and every SKILL.md rule.
import { createHash } from 'node:crypto';
import { canonicalDigest } from '../../src/package/canonical-json';
import { ProblemCode, WarningCode, inspectPackage } from '../../src/package/inspect-package';
import { ZipEntryInput, buildZip, skillZip } from '../support/zip-builder';
import { DEFAULT_LIMITS as LIMITS } from '../support/package-limits';

const sha256 = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
const skillMd = (frontmatter: string, body = '# Skill\n'): string => `---\n${frontmatter}\n---\n${body}`;
const VALID_MD = skillMd('name: my-skill\ndescription: Does things.');

describe('inspectPackage: valid packages', () => {
  const folderPackage: ZipEntryInput[] = [
    { path: 'my-skill/', directory: true },
    { path: 'my-skill/SKILL.md', data: VALID_MD },
    { path: 'my-skill/scripts/', directory: true },
    { path: 'my-skill/scripts/run.sh', data: '#!/bin/sh\necho hi\n', mode: 0o100755 },
    { path: 'my-skill/scripts/owner-only.sh', data: 'x', mode: 0o100700 },
    { path: 'my-skill/a.md', data: 'lower a' },
    { path: 'my-skill/B.md', data: 'upper B', method: 'store' },
    { path: 'my-skill/z.md', data: '' },
    // U+FF21 is EF BC A1 in UTF-8 and U+1D49C is F0 9D 92 9C, but in UTF-16 the latter sorts first (D835 < FF21).
    { path: 'my-skill/\u{1D49C}.md', data: 'script A' },
    { path: 'my-skill/\uFF21.md', data: 'fullwidth A' },
  ];
  const expectedFiles = [
    { path: 'B.md', size: 7, sha256: sha256('upper B'), mode: '644' },
    { path: 'SKILL.md', size: Buffer.byteLength(VALID_MD), sha256: sha256(VALID_MD), mode: '644' },
    { path: 'a.md', size: 7, sha256: sha256('lower a'), mode: '644' },
    { path: 'scripts/owner-only.sh', size: 1, sha256: sha256('x'), mode: '755' },
    { path: 'scripts/run.sh', size: 18, sha256: sha256('#!/bin/sh\necho hi\n'), mode: '755' },
    { path: 'z.md', size: 0, sha256: sha256(''), mode: '644' },
    { path: '\uFF21.md', size: 11, sha256: sha256('fullwidth A'), mode: '644' },
    { path: '\u{1D49C}.md', size: 8, sha256: sha256('script A'), mode: '644' },
  ];

  it('lists the files of a folder root sorted by UTF-8 bytes, with modes, hashes and a revision', async () => {
    const bytes = buildZip(folderPackage);
    const result = inspectPackage(bytes, LIMITS);
    expect(result.errors).toEqual([]);
    expect(result.warnings).toEqual([]);
    expect(result).toMatchObject({
      valid: true,
      name: 'my-skill',
      description: 'Does things.',
      frontmatter: { name: 'my-skill', description: 'Does things.' },
      files: expectedFiles,
      revision: canonicalDigest(expectedFiles),
      uploadSize: bytes.length,
    });
    expect(result.contentHash).toBe(`sha256:${sha256(result.canonical!)}`);
    expect(result.skillMd).toBe(VALID_MD);
  });

  it('accepts SKILL.md at the archive root, where every file belongs to the skill', async () => {
    const result = inspectPackage(
      skillZip('root-skill', { atRoot: true, files: { 'notes/SKILL.md': 'not a second root', 'x.txt': 'x' } }),
      LIMITS,
    );
    expect(result.errors).toEqual([]);
    expect(result.name).toBe('root-skill');
    expect(result.files.map((file) => file.path)).toEqual(['SKILL.md', 'notes/SKILL.md', 'x.txt']);
  });

  it('gives the same revision and the same stored zip to the same files zipped differently', async () => {
    const original = buildZip(folderPackage);
    const rezipped = buildZip(
      [...folderPackage]
        .filter((entry) => !entry.directory)
        .reverse()
        .map((entry) => ({ ...entry, method: entry.method === 'store' ? 'deflate' : 'store' })),
    );
    const [a, b] = [inspectPackage(original, LIMITS), inspectPackage(rezipped, LIMITS)];
    expect(b.valid).toBe(true);
    expect(b.revision).toBe(a.revision);
    expect(b.contentHash).toBe(a.contentHash);
    expect(b.canonical!.equals(a.canonical!)).toBe(true);
    expect(sha256(rezipped)).not.toBe(sha256(original));
  });

  it.each<[string, ZipEntryInput[]]>([
    ['a changed byte', [{ path: 'my-skill/a.md', data: 'lower b' }]],
    ['a changed mode', [{ path: 'my-skill/a.md', data: 'lower a', mode: 0o100755 }]],
    ['a renamed file', [{ path: 'my-skill/a2.md', data: 'lower a' }]],
  ])('changes the revision for %s', async (_title, change) => {
    const changedPaths = new Set(['my-skill/a.md', ...change.map((entry) => entry.path)]);
    const changed = [...folderPackage.filter((entry) => !changedPaths.has(entry.path)), ...change];
    const [a, b] = [inspectPackage(buildZip(folderPackage), LIMITS), inspectPackage(buildZip(changed), LIMITS)];
    expect(b.valid).toBe(true);
    expect(b.revision).not.toBe(a.revision);
  });

  it('leaves __MACOSX/ and .DS_Store out of the manifest and the layout check', async () => {
    const result = inspectPackage(
      buildZip([
        { path: '__MACOSX/', directory: true },
        { path: '__MACOSX/my-skill/._SKILL.md', data: 'resource fork' },
        { path: '.DS_Store', data: 'finder' },
        { path: 'my-skill/SKILL.md', data: VALID_MD },
        { path: 'my-skill/docs/.DS_Store', data: 'finder' },
        { path: 'my-skill/docs/guide.md', data: 'guide' },
      ]),
      LIMITS,
    );
    expect(result.errors).toEqual([]);
    expect(result.files.map((file) => file.path)).toEqual(['SKILL.md', 'docs/guide.md']);
  });
});

describe('inspectPackage: SKILL.md', () => {
  const name64 = 'a'.repeat(64);
  const emoji = '\u{1F600}';

  it.each<[string, string | Buffer, ProblemCode[]]>([
    // Delimiters and encoding.
    ['no frontmatter at all', '# Just markdown\n', ['FRONTMATTER_MISSING']],
    ['an empty file', '', ['FRONTMATTER_MISSING']],
    ['no closing delimiter', '---\nname: my-skill\ndescription: x\n', ['FRONTMATTER_MISSING']],
    ['an opening line that is not exactly ---', '--- \nname: my-skill\ndescription: x\n---\n', ['FRONTMATTER_MISSING']],
    ['text before the opening line', '\n---\nname: my-skill\ndescription: x\n---\n', ['FRONTMATTER_MISSING']],
    [
      'bytes that are not UTF-8',
      Buffer.from('---\nname: my-skill\ndescription: \xff\n---\n', 'latin1'),
      ['FRONTMATTER_INVALID'],
    ],
    ['a BOM and CRLF line endings', '\uFEFF---\r\nname: my-skill\r\ndescription: x\r\n---\r\n# Body\r\n', []],
    ['a closing line with trailing whitespace', '---\nname: my-skill\ndescription: x\n--- \t\n', []],
    ['no body at all', '---\nname: my-skill\ndescription: x\n---', []],
    // YAML.
    ['YAML that does not parse', skillMd('name: [my-skill\ndescription: x'), ['FRONTMATTER_INVALID']],
    ['a list instead of a mapping', skillMd('- name\n- description'), ['FRONTMATTER_INVALID']],
    ['a bare string instead of a mapping', skillMd('my-skill'), ['FRONTMATTER_INVALID']],
    ['an empty frontmatter', '---\n---\n', ['FRONTMATTER_INVALID']],
    ['a duplicate key', skillMd('name: my-skill\nname: my-skill\ndescription: x'), ['FRONTMATTER_INVALID']],
    ['a list used as a key', skillMd('name: my-skill\ndescription: x\n? [a, b]\n: 1'), ['FRONTMATTER_INVALID']],
    ['a binary value', skillMd('name: my-skill\ndescription: x\nicon: !!binary aGk='), ['FRONTMATTER_INVALID']],
    ['an infinite number', skillMd('name: my-skill\ndescription: x\nweight: .inf'), ['FRONTMATTER_INVALID']],
    // name.
    ['no name', skillMd('description: x'), ['NAME_MISSING']],
    ['a name without a value', skillMd('name:\ndescription: x'), ['NAME_MISSING']],
    ['a name with a leading hyphen', skillMd('name: -a\ndescription: x'), ['NAME_INVALID']],
    ['a name with a trailing hyphen', skillMd('name: a-\ndescription: x'), ['NAME_INVALID']],
    ['a name with a double hyphen', skillMd('name: a--b\ndescription: x'), ['NAME_INVALID']],
    ['a name in capitals', skillMd('name: A\ndescription: x'), ['NAME_INVALID']],
    ['a name with an underscore', skillMd('name: my_skill\ndescription: x'), ['NAME_INVALID']],
    ['an empty name', skillMd('name: ""\ndescription: x'), ['NAME_INVALID']],
    ['a name of 65 characters', skillMd(`name: ${'a'.repeat(65)}\ndescription: x`), ['NAME_INVALID']],
    ['a number as name', skillMd('name: 42\ndescription: x'), ['NAME_INVALID']],
    ['a list as name', skillMd('name: [my-skill]\ndescription: x'), ['NAME_INVALID']],
    ['a name other than the folder', skillMd('name: other-skill\ndescription: x'), ['NAME_MISMATCH']],
    // description.
    ['no description', skillMd('name: my-skill'), ['DESCRIPTION_MISSING']],
    ['a description without a value', skillMd('name: my-skill\ndescription:'), ['DESCRIPTION_MISSING']],
    ['a blank description', skillMd('name: my-skill\ndescription: "  \\t "'), ['DESCRIPTION_INVALID']],
    ['an empty description', skillMd('name: my-skill\ndescription: ""'), ['DESCRIPTION_INVALID']],
    ['a mapping as description', skillMd('name: my-skill\ndescription: {a: b}'), ['DESCRIPTION_INVALID']],
    ['a description of 4096 code points', skillMd(`name: my-skill\ndescription: ${'é'.repeat(4096)}`), []],
    [
      'a description of 4097 code points',
      skillMd(`name: my-skill\ndescription: ${'é'.repeat(4097)}`),
      ['DESCRIPTION_INVALID'],
    ],
    [
      'a description of 1024 emoji (2048 UTF-16 units)',
      skillMd(`name: my-skill\ndescription: ${emoji.repeat(1024)}`),
      [],
    ],
    // Optional fields.
    ['a license string', skillMd('name: my-skill\ndescription: x\nlicense: Apache-2.0'), []],
    ['a number as license', skillMd('name: my-skill\ndescription: x\nlicense: 2'), ['LICENSE_INVALID']],
    ['a list as license', skillMd('name: my-skill\ndescription: x\nlicense: [MIT]'), ['LICENSE_INVALID']],
    [
      'a compatibility of 500 code points',
      skillMd(`name: my-skill\ndescription: x\ncompatibility: ${emoji.repeat(500)}`),
      [],
    ],
    [
      'a compatibility of 501 characters',
      skillMd(`name: my-skill\ndescription: x\ncompatibility: ${'c'.repeat(501)}`),
      ['COMPATIBILITY_INVALID'],
    ],
    ['an empty compatibility', skillMd('name: my-skill\ndescription: x\ncompatibility: ""'), ['COMPATIBILITY_INVALID']],
    [
      'a boolean compatibility',
      skillMd('name: my-skill\ndescription: x\ncompatibility: true'),
      ['COMPATIBILITY_INVALID'],
    ],
    ['metadata of strings', skillMd('name: my-skill\ndescription: x\nmetadata:\n  author: me\n  version: "1.0"'), []],
    ['metadata with a number value', skillMd('name: my-skill\ndescription: x\nmetadata:\n  version: 1.0'), []],
    ['metadata with a nested mapping', skillMd('name: my-skill\ndescription: x\nmetadata: {a: {b: c}}'), []],
    ['metadata that is null', skillMd('name: my-skill\ndescription: x\nmetadata:'), ['METADATA_INVALID']],
    ['metadata as a list', skillMd('name: my-skill\ndescription: x\nmetadata: [a, b]'), ['METADATA_INVALID']],
    ['metadata as a string', skillMd('name: my-skill\ndescription: x\nmetadata: author'), ['METADATA_INVALID']],
    ['allowed-tools as a string', skillMd('name: my-skill\ndescription: x\nallowed-tools: Bash(git:*) Read'), []],
    ['allowed-tools as a list', skillMd('name: my-skill\ndescription: x\nallowed-tools: [Read, Bash]'), []],
    [
      'allowed-tools as a number',
      skillMd('name: my-skill\ndescription: x\nallowed-tools: 3'),
      ['ALLOWED_TOOLS_INVALID'],
    ],
    [
      'an allowed-tools entry with unbalanced parentheses',
      skillMd('name: my-skill\ndescription: x\nallowed-tools: Read Bash(git:*'),
      ['ALLOWED_TOOLS_INVALID'],
    ],
    [
      'a requires that is a list',
      skillMd('name: my-skill\ndescription: x\nmetadata: {vikingbot: {requires: [git]}}'),
      ['REQUIRES_INVALID'],
    ],
    [
      'a requires bin given as a path',
      skillMd('name: my-skill\ndescription: x\nmetadata: {"openclaw": {"requires": {"bins": ["/usr/bin/jq"]}}}'),
      ['REQUIRES_INVALID'],
    ],
  ])('%s', async (_title, content, expected) => {
    const result = inspectPackage(buildZip([{ path: 'my-skill/SKILL.md', data: content }]), LIMITS);
    expect(result.errors.map((problem) => problem.code)).toEqual(expected);
    expect(result.valid).toBe(expected.length === 0);
  });

  it('accepts a name of 64 characters equal to its folder', async () => {
    const result = inspectPackage(skillZip(name64), LIMITS);
    expect(result.errors).toEqual([]);
    expect(result.name).toBe(name64);
  });

  it('does not check the name against a folder when SKILL.md is at the archive root', async () => {
    const result = inspectPackage(buildZip([{ path: 'SKILL.md', data: VALID_MD }]), LIMITS);
    expect(result.errors).toEqual([]);
  });

  it.each([
    ['inside a quoted value', 'description: "uses --- as a rule"', 'uses --- as a rule'],
    ['starting a continuation line', 'description: "first\n  ---second"', 'first ---second'],
    ['in a block scalar', 'description: |\n  ---\n  after', '---\nafter\n'],
  ])('does not end the frontmatter at "---" %s', async (_title, yaml, description) => {
    const result = inspectPackage(
      buildZip([{ path: 'my-skill/SKILL.md', data: skillMd(`name: my-skill\n${yaml}`) }]),
      LIMITS,
    );
    expect(result.errors).toEqual([]);
    expect(result.description).toBe(description);
  });

  it('reads values with CRLF line endings without the carriage returns', async () => {
    const content = '\uFEFF---\r\nname: my-skill\r\ndescription: Line one\r\n---\r\n';
    const result = inspectPackage(buildZip([{ path: 'my-skill/SKILL.md', data: content }]), LIMITS);
    expect(result.frontmatter).toEqual({ name: 'my-skill', description: 'Line one' });
  });

  it.each<[string, string, WarningCode[], string | undefined]>([
    ['an unknown field', skillMd('name: my-skill\ndescription: x\nversion: 2'), ['UNKNOWN_FIELD'], 'version'],
    [
      'a description of 1025 code points',
      skillMd(`name: my-skill\ndescription: ${'é'.repeat(1025)}`),
      ['DESCRIPTION_LONG'],
      'description',
    ],
    [
      'metadata values that are not strings',
      skillMd('name: my-skill\ndescription: x\nmetadata:\n  version: 1.0\n  vikingbot: {requires: {bins: [git]}}'),
      ['METADATA_NOT_STRINGS'],
      'metadata',
    ],
    ['a body of 501 lines', skillMd('name: my-skill\ndescription: x', 'line\n'.repeat(501)), ['BODY_LONG'], undefined],
    ['a body of 500 lines', skillMd('name: my-skill\ndescription: x', 'line\n'.repeat(500)), [], undefined],
    [
      'a body of 500 lines without a final newline',
      skillMd('name: my-skill\ndescription: x', 'line\n'.repeat(499) + 'end'),
      [],
      undefined,
    ],
  ])('warns about %s but stays valid', async (_title, content, expected, field) => {
    const result = inspectPackage(buildZip([{ path: 'my-skill/SKILL.md', data: content }]), LIMITS);
    expect(result.valid).toBe(true);
    expect(result.revision).not.toBeNull();
    expect(result.warnings.map((warning) => warning.code)).toEqual(expected);
    if (field) expect(result.warnings[0].field).toBe(field);
  });

  it('keeps unknown fields in the parsed frontmatter', async () => {
    const content = skillMd('name: my-skill\ndescription: x\nmetadata:\n  team: core\ntags: [a, b]');
    const result = inspectPackage(buildZip([{ path: 'my-skill/SKILL.md', data: content }]), LIMITS);
    expect(result.frontmatter).toEqual({
      name: 'my-skill',
      description: 'x',
      metadata: { team: 'core' },
      tags: ['a', 'b'],
    });
  });

  it('reports every frontmatter problem at once, each naming its field', async () => {
    const content = skillMd(
      'name: -bad\ndescription: "   "\nlicense: 1\ncompatibility: ""\nmetadata: [x]\nallowed-tools: 3\nextra: y',
    );
    const result = inspectPackage(buildZip([{ path: '-bad/SKILL.md', data: content }]), LIMITS);
    expect(result.errors.map((problem) => [problem.code, problem.field])).toEqual([
      ['NAME_INVALID', 'name'],
      ['DESCRIPTION_INVALID', 'description'],
      ['LICENSE_INVALID', 'license'],
      ['COMPATIBILITY_INVALID', 'compatibility'],
      ['METADATA_INVALID', 'metadata'],
      ['ALLOWED_TOOLS_INVALID', 'allowed-tools'],
    ]);
    expect(result.warnings).toEqual([expect.objectContaining({ code: 'UNKNOWN_FIELD', field: 'extra' })]);
    expect(result).toMatchObject({ valid: false, revision: null, name: '-bad', description: '   ' });
    for (const problem of result.errors) expect(problem.message).toMatch(/^[A-Z].*\.$/);
  });
});

describe('inspectPackage: the tool policy (docs/packages.md#tool-policy-fields)', () => {
  const inspect = (frontmatter: string) =>
    inspectPackage(buildZip([{ path: 'my-skill/SKILL.md', data: skillMd(frontmatter) }]), LIMITS);

  it('reads a VikingBot skill: its allowed-tools and metadata.vikingbot.requires', () => {
    const result = inspect(
      [
        'name: my-skill',
        'description: Audit a release and write a risk report.',
        'allowed-tools: Bash(git:*) Bash(python *) Read',
        'metadata:',
        '  vikingbot:',
        '    requires:',
        '      bins: [python3, git]',
        '      env: [GITHUB_TOKEN]',
      ].join('\n'),
    );
    expect(result.errors).toEqual([]);
    expect(result.warnings.map((w) => w.code)).toEqual(['METADATA_NOT_STRINGS']);
    expect(result.allowedTools).toEqual(['Bash(git:*)', 'Bash(python *)', 'Read']);
    expect(result.requires).toEqual({ bins: ['git', 'python3'], env: ['GITHUB_TOKEN'] });
  });

  it.each<[string, string, string[] | null, { bins: string[]; env: string[] }, string[]]>([
    ['no allowed-tools: null, nothing required', '', null, { bins: [], env: [] }, []],
    ['an empty allowed-tools allows no tool', 'allowed-tools: ""', [], { bins: [], env: [] }, []],
    ['allowed-tools with no value allows no tool', 'allowed-tools:', [], { bins: [], env: [] }, []],
    [
      'an OpenClaw skill: one line of JSON',
      'metadata: {"openclaw": {"requires": {"bins": ["jq"]}, "homepage": "https://example.com"}}',
      null,
      { bins: ['jq'], env: [] },
      ['METADATA_NOT_STRINGS'],
    ],
    [
      'a YAML list of tools',
      'allowed-tools: [Read, "Bash(git:*)"]',
      ['Read', 'Bash(git:*)'],
      { bins: [], env: [] },
      ['ALLOWED_TOOLS_LIST'],
    ],
    [
      'plain metadata.requires, one name each',
      'metadata: {requires: {bins: jq, env: HOME}}',
      null,
      { bins: ['jq'], env: ['HOME'] },
      ['METADATA_NOT_STRINGS'],
    ],
  ])('%s', (_title, yaml, allowedTools, requires, warnings) => {
    const result = inspect(`name: my-skill\ndescription: x${yaml ? `\n${yaml}` : ''}`);
    expect(result.errors).toEqual([]);
    expect(result.warnings.map((w) => w.code)).toEqual(warnings);
    expect({ allowedTools: result.allowedTools, requires: result.requires }).toEqual({ allowedTools, requires });
  });

  it('lists every bad entry of allowed-tools and requires, and keeps only the valid part', () => {
    const result = inspect(
      'name: my-skill\ndescription: x\nallowed-tools: Read Bash() (x) Write\nmetadata: {vikingbot: {requires: {bins: [git, "a b"], env: [1X]}}}',
    );
    expect(result.valid).toBe(false);
    expect(result.errors.map((e) => [e.code, e.field])).toEqual([
      ['ALLOWED_TOOLS_INVALID', 'allowed-tools'],
      ['ALLOWED_TOOLS_INVALID', 'allowed-tools'],
      ['REQUIRES_INVALID', 'metadata.vikingbot.requires'],
      ['REQUIRES_INVALID', 'metadata.vikingbot.requires'],
    ]);
    expect(result.allowedTools).toEqual(['Read', 'Write']);
    expect(result.requires).toEqual({ bins: ['git'], env: [] });
  });
});

describe('inspectPackage: SKILL.md in bounded time and memory', () => {
  const fm = (yaml: string): string => skillMd(`name: my-skill\ndescription: x\n${yaml}`);
  const keys = (count: number, prefix = 'k'): string =>
    Array.from({ length: count }, (_, i) => `  ${prefix}${i}: v`).join('\n');
  const list = (count: number): string => `[${Array.from({ length: count }, () => '1').join(',')}]`;
  const aliases = (anchor: string, count: number): string =>
    `[${Array.from({ length: count }, () => `*${anchor}`).join(',')}]`;

  it.each<[string, string, ProblemCode[]]>([
    ['a SKILL.md of exactly 1 MiB', fm('') + 'x'.repeat(1024 * 1024 - Buffer.byteLength(fm(''))), []],
    [
      'a SKILL.md one byte over 1 MiB',
      fm('') + 'x'.repeat(1024 * 1024 + 1 - Buffer.byteLength(fm(''))),
      ['SKILL_MD_TOO_LARGE'],
    ],
    ['a frontmatter block over 64 KiB', fm(`notes: "${'n'.repeat(64 * 1024)}"`), ['FRONTMATTER_INVALID']],
    ["40,000 metadata keys (the hostile review's 96 KB)", fm(`metadata:\n${keys(40_000)}`), ['FRONTMATTER_INVALID']],
    ['5,000 distinct metadata keys', fm(`metadata:\n${keys(5_000)}`), []],
    ['5,000 metadata keys with one repeated', fm(`metadata:\n${keys(5_000)}\n  k17: again`), ['FRONTMATTER_INVALID']],
    [
      'aliases that expand past 10,000 values (billion laughs)',
      fm(
        `a: &a ${list(10)}\nb: &b ${aliases('a', 10)}\nc: &c ${aliases('b', 10)}\nd: &d ${aliases('c', 10)}\ne: ${aliases('d', 10)}`,
      ),
      ['FRONTMATTER_INVALID'],
    ],
    ['a 5,000-item list aliased 99 times', fm(`a: &a ${list(5_000)}\nb: ${aliases('a', 99)}`), ['FRONTMATTER_INVALID']],
    [
      'a 60 KB string aliased 20 times',
      fm(`a: &a "${'s'.repeat(60_000)}"\nb: ${aliases('a', 20)}`),
      ['FRONTMATTER_INVALID'],
    ],
    ['an alias inside its own anchor', fm('a: &a [1, *a]'), ['FRONTMATTER_INVALID']],
    ['an alias to no anchor', fm('a: *nothing'), ['FRONTMATTER_INVALID']],
    ['aliases that stay under the limit', fm(`a: &a ${list(100)}\nb: ${aliases('a', 90)}`), []],
  ])('%s', async (_title, content, expected) => {
    // Stored, so the repetitive filler is not refused for its compression ratio first.
    const zip = buildZip([{ path: 'my-skill/SKILL.md', data: content, method: 'store' }]);
    const result = inspectPackage(zip, LIMITS);
    expect(result.errors.map((problem) => problem.code)).toEqual(expected);
  });

  it('expands aliases into the stored frontmatter, and keeps "__proto__" as a plain key', async () => {
    const content = fm('base: &b {tool: git}\nuse: *b\n__proto__: {polluted: true}');
    const result = inspectPackage(buildZip([{ path: 'my-skill/SKILL.md', data: content }]), LIMITS);
    expect(result.errors).toEqual([]);
    expect(JSON.parse(JSON.stringify(result.frontmatter))).toEqual({
      name: 'my-skill',
      description: 'x',
      base: { tool: 'git' },
      use: { tool: 'git' },
      ['__proto__']: { polluted: true },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('stops inflating SKILL.md at 1 MiB whatever its header declares', async () => {
    const huge = fm('') + 'x'.repeat(50 * 1024 * 1024);
    const zip = buildZip([{ path: 'my-skill/SKILL.md', data: huge, declaredSize: 10 }]);
    const result = inspectPackage(zip, { ...LIMITS, maxCompressionRatio: 100_000 });
    expect(result.errors.map((problem) => problem.code)).toEqual(['SKILL_MD_TOO_LARGE']);
  });
});
