// Skill URIs, cursors, pages and entries of the MCP Skills extension (docs/mcp-skills.md), as tables.
import { directoryChildren, overLimits, skillEntry, SkillVersionView } from '../../src/mcp/skill-entries';
import {
  compareKeys,
  decodeDirectoryCursor,
  decodeListCursor,
  encodeCursor,
  ListKey,
  MAX_CURSOR_LENGTH,
  pageAfter,
  withinBudget,
} from '../../src/mcp/skill-pages';
import { MAX_SKILL_URI_LENGTH, parseSkillUri, SkillAddress, SkillScope, skillUri } from '../../src/mcp/skill-uri';

const personal: SkillScope = { kind: 'personal' };
const pub: SkillScope = { kind: 'public' };
const group = (namespace: string): SkillScope => ({ kind: 'group', namespace });

describe('skillUri', () => {
  it.each<[SkillScope, string, string | null, string]>([
    [personal, 'reader', 'SKILL.md', 'skill://default/reader/SKILL.md'],
    [pub, 'tools', 'scripts/run.py', 'skill://public/tools/scripts/run.py'],
    [group('team-a/sub'), 'deep', 'SKILL.md', 'skill://team-a/sub/deep/SKILL.md'],
    [group('team-a'), 'x', null, 'skill://team-a/x'],
    [personal, 'x', 'docs/a b#?.md', 'skill://default/x/docs/a%20b%23%3F.md'],
    [personal, 'x', 'résumé/ü.md', 'skill://default/x/r%C3%A9sum%C3%A9/%C3%BC.md'],
  ])('%j %s %s is %s', (scope, name, path, uri) => {
    expect(skillUri(scope, name, path)).toBe(uri);
  });
});

describe('parseSkillUri', () => {
  it.each<[string, SkillAddress[]]>([
    ['skill://default/reader/SKILL.md', [{ scope: personal, name: 'reader', path: 'SKILL.md' }]],
    ['skill://public/tools/a/b.md', [{ scope: pub, name: 'tools', path: 'a/b.md' }]],
    ['skill://public/tools', [{ scope: pub, name: 'tools', path: null }]],
    ['skill://team-a/x/SKILL.md', [{ scope: group('team-a'), name: 'x', path: 'SKILL.md' }]],
    [
      // The deepest group first: `deep` of team-a/sub, or the file deep/SKILL.md of team-a's `sub`.
      'skill://team-a/sub/deep/SKILL.md',
      [
        { scope: group('team-a/sub'), name: 'deep', path: 'SKILL.md' },
        { scope: group('team-a'), name: 'sub', path: 'deep/SKILL.md' },
      ],
    ],
    [
      'skill://a/b/c/d/e',
      [
        { scope: group('a/b/c'), name: 'd', path: 'e' },
        { scope: group('a/b'), name: 'c', path: 'd/e' },
        { scope: group('a'), name: 'b', path: 'c/d/e' },
      ],
    ],
    ['skill://team-a/sub', [{ scope: group('team-a'), name: 'sub', path: null }]],
    ['skill://default/x/docs/a%20b%23%3F.md', [{ scope: personal, name: 'x', path: 'docs/a b#?.md' }]],
    // A group segment that is reserved or malformed is no group.
    ['skill://team-a/api/x/SKILL.md', [{ scope: group('team-a'), name: 'api', path: 'x/SKILL.md' }]],
  ])('%s', (uri, addresses) => {
    expect(parseSkillUri(uri)).toEqual(addresses);
  });

  it.each([
    ['another scheme', 'https://default/x/SKILL.md'],
    ['no skill path', 'skill://default'],
    ['only a scope', 'skill://public/'],
    ['an empty segment', 'skill://default//SKILL.md'],
    ['a trailing slash', 'skill://default/x/'],
    ['a name that is no skill name', 'skill://default/X_Y/SKILL.md'],
    ['a name with a double hyphen', 'skill://public/a--b/SKILL.md'],
    ['a name too long', `skill://default/${'a'.repeat(65)}/SKILL.md`],
    ['an encoded slash', 'skill://default/x/a%2Fb.md'],
    ['an undecodable segment', 'skill://default/x/%E0%A4%A.md'],
    ['a query', 'skill://default/x/SKILL.md?v=1'],
    ['a fragment', 'skill://default/x/SKILL.md#top'],
    ['a group of upper case', 'skill://Team/x/SKILL.md'],
    ['too long', `skill://default/x/${'a'.repeat(MAX_SKILL_URI_LENGTH)}`],
  ])('names nothing for %s', (_case, uri) => {
    expect(parseSkillUri(uri)).toEqual([]);
  });

  it('reads back every URI it writes', () => {
    for (const [scope, name, path] of [
      [personal, 'a', 'x y/ü.md'],
      [group('a/b/c'), 'z-1', 'deep/er/file.bin'],
      [pub, 'p', null],
    ] as const) {
      expect(parseSkillUri(skillUri(scope, name, path))[0]).toEqual({ scope, name, path });
    }
  });
});

describe('cursors', () => {
  const key: ListKey = { name: 'reader', rank: 1, namespace: 'team-a/sub' };

  it('round-trips a listing key and a folder child, each only as its own kind', () => {
    const list = encodeCursor('skills', key);
    expect(list).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeListCursor(list)).toEqual(key);
    expect(decodeDirectoryCursor(list)).toBeNull();
    const folder = encodeCursor('directory', 'guide.md');
    expect(decodeDirectoryCursor(folder)).toBe('guide.md');
    expect(decodeListCursor(folder)).toBeNull();
  });

  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  it.each([
    ['empty', ''],
    ['not base64url', 'a+b/c='],
    ['not JSON', Buffer.from('{').toString('base64url')],
    ['another version', b64({ v: 2, k: 'skills', a: key })],
    ['a key with a rank out of range', b64({ v: 1, k: 'skills', a: { ...key, rank: 3 } })],
    ['a key with more fields', b64({ v: 1, k: 'skills', a: { ...key, x: 1 } })],
    ['a key of the wrong types', b64({ v: 1, k: 'skills', a: { name: 1, rank: 0, namespace: 'x' } })],
    ['too long', 'a'.repeat(MAX_CURSOR_LENGTH + 1)],
    ['JSON null', b64(null)],
  ])('refuses a cursor that is %s', (_case, cursor) => {
    expect(decodeListCursor(cursor)).toBeNull();
  });
});

describe('listing order and pages', () => {
  it('sorts by name, then personal, group, public, then group path', () => {
    const keys: ListKey[] = [
      { name: 'b', rank: 0, namespace: 'default' },
      { name: 'a', rank: 2, namespace: 'default' },
      { name: 'a', rank: 1, namespace: 'team-b' },
      { name: 'a', rank: 1, namespace: 'team-a/sub' },
      { name: 'a', rank: 0, namespace: 'default' },
      { name: 'a-b', rank: 0, namespace: 'default' },
    ];
    expect([...keys].sort(compareKeys)).toEqual([
      { name: 'a', rank: 0, namespace: 'default' },
      { name: 'a', rank: 1, namespace: 'team-a/sub' },
      { name: 'a', rank: 1, namespace: 'team-b' },
      { name: 'a', rank: 2, namespace: 'default' },
      { name: 'a-b', rank: 0, namespace: 'default' },
      { name: 'b', rank: 0, namespace: 'default' },
    ]);
  });

  const cmp = (a: number, b: number) => a - b;
  it.each<[number[], number | null, number, { items: number[]; more: boolean }]>([
    [[1, 2, 3, 4, 5], null, 2, { items: [1, 2], more: true }],
    [[1, 2, 3, 4, 5], 2, 2, { items: [3, 4], more: true }],
    [[1, 2, 3, 4, 5], 4, 2, { items: [5], more: false }],
    [[1, 2, 3, 4, 5], 5, 2, { items: [], more: false }],
    [[1, 3, 5], 2, 5, { items: [3, 5], more: false }],
    [[], null, 3, { items: [], more: false }],
  ])('pages %j after %s, %s at a time', (sorted, after, limit, page) => {
    expect(pageAfter(sorted, (n) => n, cmp, after, limit)).toEqual(page);
  });

  it.each<[number[], number, number[]]>([
    [[3, 3, 3], 7, [3, 3]],
    [[3, 3, 3], 9, [3, 3, 3]],
    [[10, 1], 5, [10]],
    [[], 5, []],
  ])('keeps whole entries of %j within %s resources, at least one', (weights, budget, kept) => {
    expect(withinBudget(weights, (w) => w, budget)).toEqual(kept);
  });
});

describe('entries', () => {
  const file = (path: string, size = 1) => ({ path, size, sha256: 'ab'.repeat(32), mode: '644' as const });
  const view = (manifest: ReturnType<typeof file>[]): SkillVersionView => ({
    scope: group('team-a/sub'),
    name: 'deep',
    manifest,
    frontmatter: { name: 'deep', description: 'D' },
  });

  it('lists every file with its digest and size under the skill path', () => {
    expect(skillEntry(view([file('SKILL.md', 10), file('a/b.md', 3)]))).toEqual({
      uri: 'skill://team-a/sub/deep/SKILL.md',
      frontmatter: { name: 'deep', description: 'D' },
      resources: [
        { uri: 'skill://team-a/sub/deep/SKILL.md', digest: `sha256:${'ab'.repeat(32)}`, size: 10 },
        { uri: 'skill://team-a/sub/deep/a/b.md', digest: `sha256:${'ab'.repeat(32)}`, size: 3 },
      ],
    });
  });

  it.each<[string, ReturnType<typeof file>[], string | null]>([
    ['512 files', Array.from({ length: 512 }, (_, i) => file(`f${i}`)), null],
    [
      '513 files',
      Array.from({ length: 513 }, (_, i) => file(`f${i}`)),
      'Left out of skills/list: this version has 513 files, more than the 512 a skill may have under the MCP Skills extension',
    ],
    ['16 MiB exactly', [file('SKILL.md', 16 * 1024 * 1024)], null],
    [
      'one byte more',
      [file('SKILL.md', 16 * 1024 * 1024), file('x', 1)],
      'Left out of skills/list: this version has 16777217 bytes of files, more than the 16777216 (16 MiB) a skill may have under the MCP Skills extension',
    ],
  ])('limits: %s', (_case, manifest, why) => {
    expect(overLimits(manifest)).toBe(why);
  });

  it('lists the direct children of a folder, folders as inode/directory, in byte order', () => {
    const v = view([
      file('SKILL.md'),
      file('a-b/x.md'),
      file('a/c.bin', 4),
      file('a/d/e.txt'),
      file('a/B.md'),
      file('z.py'),
    ]);
    expect(directoryChildren(v, null)?.map((c) => [c.name, c.mimeType])).toEqual([
      ['SKILL.md', 'text/markdown'],
      ['a', 'inode/directory'],
      ['a-b', 'inode/directory'],
      ['z.py', 'text/plain'],
    ]);
    expect(directoryChildren(v, 'a')).toEqual([
      { uri: 'skill://team-a/sub/deep/a/B.md', name: 'B.md', mimeType: 'text/markdown', size: 1 },
      { uri: 'skill://team-a/sub/deep/a/c.bin', name: 'c.bin', mimeType: 'application/octet-stream', size: 4 },
      { uri: 'skill://team-a/sub/deep/a/d', name: 'd', mimeType: 'inode/directory' },
    ]);
    expect(directoryChildren(v, 'a/d')?.map((c) => c.name)).toEqual(['e.txt']);
    // A file, a missing folder, a prefix that is no folder.
    expect(directoryChildren(v, 'z.py')).toBeNull();
    expect(directoryChildren(v, 'nope')).toBeNull();
    expect(directoryChildren(v, 'a-')).toBeNull();
  });
});
