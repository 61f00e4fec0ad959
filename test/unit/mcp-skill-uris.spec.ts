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
    [group('team-a'), 'x', null, 'skill://team-a/x'],
    // A group path is one segment, `.` for `/`.
    [group('team-a/sub'), 'deep', 'SKILL.md', 'skill://team-a.sub/deep/SKILL.md'],
    [group('a/b/c'), 'd', 'e/f.md', 'skill://a.b.c/d/e/f.md'],
    [group('plat'), 'deploy', 'scripts/run.sh', 'skill://plat/deploy/scripts/run.sh'],
    [group('plat/deploy'), 'scripts', 'run.sh', 'skill://plat.deploy/scripts/run.sh'],
    [personal, 'x', 'docs/a b#?.md', 'skill://default/x/docs/a%20b%23%3F.md'],
    [personal, 'x', 'résumé/ü.md', 'skill://default/x/r%C3%A9sum%C3%A9/%C3%BC.md'],
  ])('%j %s %s is %s', (scope, name, path, uri) => {
    expect(skillUri(scope, name, path)).toBe(uri);
  });
});

describe('parseSkillUri: the first segment is the scope, the second the skill, the rest the file', () => {
  it.each<[string, SkillAddress]>([
    ['skill://default/reader/SKILL.md', { scope: personal, name: 'reader', path: 'SKILL.md' }],
    ['skill://public/tools/a/b.md', { scope: pub, name: 'tools', path: 'a/b.md' }],
    ['skill://public/tools', { scope: pub, name: 'tools', path: null }],
    ['skill://team-a/x/SKILL.md', { scope: group('team-a'), name: 'x', path: 'SKILL.md' }],
    ['skill://team-a.sub/deep/SKILL.md', { scope: group('team-a/sub'), name: 'deep', path: 'SKILL.md' }],
    ['skill://a.b.c/d/e', { scope: group('a/b/c'), name: 'd', path: 'e' }],
    // The old nested form has one reading only: a file of the top group's skill.
    ['skill://team-a/sub/deep/SKILL.md', { scope: group('team-a'), name: 'sub', path: 'deep/SKILL.md' }],
    ['skill://plat/deploy/scripts/run.sh', { scope: group('plat'), name: 'deploy', path: 'scripts/run.sh' }],
    ['skill://a/b/c/d/e', { scope: group('a'), name: 'b', path: 'c/d/e' }],
    ['skill://team-a/sub', { scope: group('team-a'), name: 'sub', path: null }],
    ['skill://default/x/docs/a%20b%23%3F.md', { scope: personal, name: 'x', path: 'docs/a b#?.md' }],
    // A percent-encoded scope reads as the same scope.
    ['skill://team%2Da.sub/x', { scope: group('team-a/sub'), name: 'x', path: null }],
    ['skill://team-a%2Esub/x', { scope: group('team-a/sub'), name: 'x', path: null }],
    // `.` in a path is a path's: only the scope segment maps it.
    ['skill://default/x/a.b/c.md', { scope: personal, name: 'x', path: 'a.b/c.md' }],
  ])('%s', (uri, address) => {
    expect(parseSkillUri(uri)).toEqual(address);
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
    ['an encoded slash in the scope', 'skill://team-a%2Fsub/x/SKILL.md'],
    ['an undecodable segment', 'skill://default/x/%E0%A4%A.md'],
    ['a query', 'skill://default/x/SKILL.md?v=1'],
    ['a fragment', 'skill://default/x/SKILL.md#top'],
    ['a group of upper case', 'skill://Team/x/SKILL.md'],
    ['a group four deep', 'skill://a.b.c.d/x/SKILL.md'],
    ['an empty group segment', 'skill://a..b/x/SKILL.md'],
    ['a leading dot', 'skill://.a/x/SKILL.md'],
    ['a trailing dot', 'skill://a./x/SKILL.md'],
    ['a reserved group segment', 'skill://team-a.api/x/SKILL.md'],
    ['a reserved scope inside a group path', 'skill://team-a.public/x/SKILL.md'],
    ['`default` as a group segment', 'skill://default.x/y/SKILL.md'],
    ['too long', `skill://default/x/${'a'.repeat(MAX_SKILL_URI_LENGTH)}`],
  ])('names nothing for %s', (_case, uri) => {
    expect(parseSkillUri(uri)).toBeNull();
  });

  it('reads back every URI it writes, and no two skills write the same one', () => {
    const files: Array<[SkillScope, string, string | null]> = [
      [personal, 'a', 'x y/ü.md'],
      [group('a/b/c'), 'z-1', 'deep/er/file.bin'],
      [pub, 'p', null],
      // The collisions of the nested form, each now a URI of its own.
      [group('plat'), 'deploy', 'scripts/run.sh'],
      [group('plat/deploy'), 'scripts', 'run.sh'],
      [group('plat/deploy/scripts'), 'run', 'SKILL.md'],
      [group('plat'), 'deploy', 'scripts/run/SKILL.md'],
    ];
    const uris = files.map(([scope, name, path]) => skillUri(scope, name, path));
    expect(new Set(uris).size).toBe(uris.length);
    files.forEach(([scope, name, path], i) => expect(parseSkillUri(uris[i])).toEqual({ scope, name, path }));
  });
});

describe('cursors', () => {
  const key: ListKey = { name: 'reader', rank: 1, namespace: 'team-a/sub' };
  const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
  const json = (value: unknown) => b64(JSON.stringify(value));

  it('round-trips a listing key and a folder child, each only as its own kind', () => {
    for (const written of [
      key,
      { name: 'x', rank: 0, namespace: 'default' },
      { name: 'x', rank: 2, namespace: 'default' },
    ]) {
      const list = encodeCursor('skills', written);
      expect(list).toMatch(/^[A-Za-z0-9_-]+$/);
      expect(decodeListCursor(list)).toEqual(written);
      expect(decodeDirectoryCursor(list)).toBeNull();
    }
    const folder = encodeCursor('directory', 'guide.md');
    expect(decodeDirectoryCursor(folder)).toBe('guide.md');
    expect(decodeListCursor(folder)).toBeNull();
    expect(decodeDirectoryCursor(encodeCursor('directory', 'résumé 😀.md'))).toBe('résumé 😀.md');
  });

  it('writes one encoding whatever order the key was built in', () => {
    expect(encodeCursor('skills', { namespace: 'team-a/sub', rank: 1, name: 'reader' })).toBe(
      encodeCursor('skills', key),
    );
  });

  // Every cursor this service did not write: refused before anything is looked up.
  const valid = encodeCursor('skills', key);
  it.each<[string, unknown]>([
    ['empty', ''],
    ['not a string', 42],
    ['not base64url', 'a+b/c='],
    ['base64 with padding', `${valid}=`],
    [
      'standard base64 of a valid cursor',
      Buffer.from(JSON.stringify({ v: 1, k: 'skills', a: key })).toString('base64'),
    ],
    ['not JSON', b64('{')],
    ['JSON null', json(null)],
    ['a JSON list', json([1, 'skills', key])],
    ['a JSON string', json('reader')],
    ['another version', json({ v: 2, k: 'skills', a: key })],
    ['another kind', json({ v: 1, k: 'tools', a: key })],
    ['a cursor with more fields', json({ v: 1, k: 'skills', a: key, x: 1 })],
    ['a key with more fields', json({ v: 1, k: 'skills', a: { ...key, x: 1 } })],
    ['a key with a field missing', json({ v: 1, k: 'skills', a: { name: 'x', rank: 1 } })],
    ['a key of the wrong types', json({ v: 1, k: 'skills', a: { name: 1, rank: 0, namespace: 'x' } })],
    ['a rank out of range', json({ v: 1, k: 'skills', a: { ...key, rank: 3 } })],
    ['a rank that is no integer', json({ v: 1, k: 'skills', a: { ...key, rank: 1.5 } })],
    ['a rank as text', json({ v: 1, k: 'skills', a: { ...key, rank: '1' } })],
    ['U+0000 in the name', json({ v: 1, k: 'skills', a: { ...key, name: 'a\u0000b' } })],
    ['U+0000 in the namespace', json({ v: 1, k: 'skills', a: { ...key, namespace: 'team\u0000a' } })],
    ['a lone surrogate in the name', b64('{"v":1,"k":"skills","a":{"name":"\\ud800","rank":1,"namespace":"a"}}')],
    ['a name that is no skill name', json({ v: 1, k: 'skills', a: { ...key, name: 'Reader' } })],
    ['a name too long', json({ v: 1, k: 'skills', a: { ...key, name: 'a'.repeat(65) } })],
    ['a namespace that is no namespace', json({ v: 1, k: 'skills', a: { ...key, namespace: 'a//b' } })],
    ['a group four deep', json({ v: 1, k: 'skills', a: { ...key, namespace: 'a/b/c/d' } })],
    ['a reserved group segment', json({ v: 1, k: 'skills', a: { ...key, namespace: 'team-a/api' } })],
    ['an empty namespace', json({ v: 1, k: 'skills', a: { ...key, namespace: '' } })],
    ['a group rank in default', json({ v: 1, k: 'skills', a: { ...key, namespace: 'default' } })],
    ['a personal rank in a group', json({ v: 1, k: 'skills', a: { ...key, rank: 0 } })],
    ['a public rank in a group', json({ v: 1, k: 'skills', a: { ...key, rank: 2 } })],
    ['fields in another order', json({ k: 'skills', v: 1, a: key })],
    [
      'key fields in another order',
      json({ v: 1, k: 'skills', a: { rank: 1, name: 'reader', namespace: 'team-a/sub' } }),
    ],
    ['spaces in the JSON', b64(JSON.stringify({ v: 1, k: 'skills', a: key }, null, 1))],
    ['an escaped letter', b64(JSON.stringify({ v: 1, k: 'skills', a: key }).replace('reader', '\\u0072eader'))],
    ['1.0 for 1', b64(JSON.stringify({ v: 1, k: 'skills', a: key }).replace('"v":1', '"v":1.0'))],
    [
      'invalid UTF-8 (a name byte replaced)',
      Buffer.from(JSON.stringify({ v: 1, k: 'skills', a: key }).replace('reader', 'r\u00ffder'), 'latin1').toString(
        'base64url',
      ),
    ],
    ['too long', 'a'.repeat(MAX_CURSOR_LENGTH + 1)],
    ['a valid cursor followed by more', `${valid}AA`],
  ])('refuses a skills cursor that is %s', (_case, cursor) => {
    expect(decodeListCursor(cursor)).toBeNull();
  });

  it.each<[string, unknown]>([
    ['empty', ''],
    ['a name with a slash', json({ v: 1, k: 'directory', a: 'a/b' })],
    ['an empty name', json({ v: 1, k: 'directory', a: '' })],
    ['U+0000', json({ v: 1, k: 'directory', a: 'a\u0000' })],
    ['a lone surrogate', b64('{"v":1,"k":"directory","a":"\\udc00x"}')],
    ['a number', json({ v: 1, k: 'directory', a: 7 })],
    ['a skills key', json({ v: 1, k: 'directory', a: key })],
    ['an escaped letter', b64('{"v":1,"k":"directory","a":"\\u0061.md"}')],
    ['too long', json({ v: 1, k: 'directory', a: 'a'.repeat(MAX_CURSOR_LENGTH) })],
  ])('refuses a folder cursor that is %s', (_case, cursor) => {
    expect(decodeDirectoryCursor(cursor)).toBeNull();
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
      uri: 'skill://team-a.sub/deep/SKILL.md',
      frontmatter: { name: 'deep', description: 'D' },
      resources: [
        { uri: 'skill://team-a.sub/deep/SKILL.md', digest: `sha256:${'ab'.repeat(32)}`, size: 10 },
        { uri: 'skill://team-a.sub/deep/a/b.md', digest: `sha256:${'ab'.repeat(32)}`, size: 3 },
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
      { uri: 'skill://team-a.sub/deep/a/B.md', name: 'B.md', mimeType: 'text/markdown', size: 1 },
      { uri: 'skill://team-a.sub/deep/a/c.bin', name: 'c.bin', mimeType: 'application/octet-stream', size: 4 },
      { uri: 'skill://team-a.sub/deep/a/d', name: 'd', mimeType: 'inode/directory' },
    ]);
    expect(directoryChildren(v, 'a/d')?.map((c) => c.name)).toEqual(['e.txt']);
    // A file, a missing folder, a prefix that is no folder.
    expect(directoryChildren(v, 'z.py')).toBeNull();
    expect(directoryChildren(v, 'nope')).toBeNull();
    expect(directoryChildren(v, 'a-')).toBeNull();
  });
});
