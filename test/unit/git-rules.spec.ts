// The rules of a git import that need no network: allowed hosts and credentials as an operator
// writes them, and the url, ref and path a caller gives (docs/publishing.md#importing-from-git).
import { parseGitAllowedHosts, parseGitCredentials } from '../../src/config/git-settings';
import { DomainError } from '../../src/common/errors/domain-error';
import {
  checkGitLocation,
  gitBasicAuthorization,
  gitCredentialFor,
  gitEntryKind,
  isGitHostAllowed,
  isLfsPointer,
  maskGitSecrets,
  parseLsRemote,
  parseLsTree,
  pickRef,
  shortGitMessage,
} from '../../src/git-sources/git/git-rules';

const ALLOWED = ['github.com', 'git.example.com:8443', 'http://127.0.0.1:8080'];
const HEX = 'a1'.repeat(20);

function codeOf(run: () => unknown): { code: string; field?: unknown } | 'ok' {
  try {
    run();
    return 'ok';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return error.details?.field === undefined ? { code: error.code } : { code: error.code, field: error.details.field };
  }
}

describe('GIT_ALLOWED_HOSTS', () => {
  it.each([
    ['', []],
    [' , ', []],
    ['github.com', ['github.com']],
    ['GitHub.com:443', ['github.com']],
    ['https://github.com', ['github.com']],
    ['git.example.com:8443', ['git.example.com:8443']],
    ['http://127.0.0.1:8080', ['http://127.0.0.1:8080']],
    ['HTTP://host.local:80', ['http://host.local']],
    ['[::1]:8080', ['[::1]:8080']],
    [' a.example , b.example ,a.example', ['a.example', 'b.example']],
  ])('%j allows %j', (value, hosts) => {
    expect(parseGitAllowedHosts(value)).toEqual({ hosts, problems: [] });
  });

  it.each([
    'github.com/anthropics',
    'user@github.com',
    '*.example.com',
    'ssh://github.com',
    'file:///srv/git',
    'github.com:99999',
    'github.com:0',
    'github.com:',
    'github.com:https',
    'https://',
    'bad_host.example',
    '-github.com',
  ])('%j is a problem naming the entry', (entry) => {
    const { hosts, problems } = parseGitAllowedHosts(`github.com,${entry}`);
    expect(hosts).toEqual(['github.com']);
    expect(problems).toEqual([`GIT_ALLOWED_HOSTS: "${entry}" is not host[:port] or http://host[:port]`]);
  });

  it.each([
    ['https://github.com/a/b', true],
    ['https://GITHUB.com:443/a/b', true],
    ['http://github.com/a/b', false],
    ['https://github.com:8443/a/b', false],
    ['https://evil.github.com/a/b', false],
    ['https://git.example.com:8443/a', true],
    ['https://git.example.com/a', false],
    ['http://127.0.0.1:8080/a', true],
    ['https://127.0.0.1:8080/a', false],
    ['http://127.0.0.1/a', false],
    ['ftp://github.com/a', false],
  ])('%s allowed: %s', (url, allowed) => {
    expect(isGitHostAllowed(ALLOWED, new URL(url))).toBe(allowed);
  });
});

describe('GIT_CREDENTIALS', () => {
  it('read host[:port]=token entries', () => {
    const { credentials, problems } = parseGitCredentials(
      'github.com=ghp_one-token, git.example.com:8443=glpat-two-token,127.0.0.1:8080=tok=with=equals',
    );
    expect(problems).toEqual([]);
    expect([...credentials]).toEqual([
      ['github.com', 'ghp_one-token'],
      ['git.example.com:8443', 'glpat-two-token'],
      ['127.0.0.1:8080', 'tok=with=equals'],
    ]);
  });

  it.each([
    ['github.com', 'GIT_CREDENTIALS entry 1 is not host[:port]=token'],
    ['=secret-token', 'GIT_CREDENTIALS entry 1 is not host[:port]=token'],
    ['github.com=', 'GIT_CREDENTIALS entry 1 is not host[:port]=token'],
    ['https://github.com=secret-token', 'GIT_CREDENTIALS entry 1: the host must be host[:port], without a scheme'],
    ['github.com/org=secret-token', 'GIT_CREDENTIALS entry 1: the host must be host[:port], without a path'],
    [
      'github.com=secret token',
      'GIT_CREDENTIALS entry 1: the token must be up to 1024 printable characters without spaces',
    ],
    [
      'github.com=secret\u0007token',
      'GIT_CREDENTIALS entry 1: the token must be up to 1024 printable characters without spaces',
    ],
  ])('%j: %s (the token never repeated)', (value, problem) => {
    const { problems } = parseGitCredentials(value);
    expect(problems).toEqual([problem]);
    expect(problems.join()).not.toContain('secret');
  });

  it('a token shorter than 8 characters is a problem that does not repeat it', () => {
    expect(parseGitCredentials('github.com=seven77').problems).toEqual([
      'GIT_CREDENTIALS entry 1: the token must be at least 8 characters',
    ]);
  });

  it('a host named twice is a problem', () => {
    expect(parseGitCredentials('github.com=one-token,GitHub.com=two-token').problems).toEqual([
      'GIT_CREDENTIALS entry 2: github.com is named twice',
    ]);
  });

  const credentials = new Map([
    ['github.com', 'A'],
    ['git.example.com:8443', 'B'],
    ['127.0.0.1:8080', 'C'],
  ]);
  it.each([
    ['https://github.com/a/b', 'A'],
    ['https://github.com:443/a/b', 'A'],
    ['https://github.com:8443/a/b', undefined],
    ['https://api.github.com/a/b', undefined],
    ['https://github.com.evil.example/a', undefined],
    ['https://git.example.com:8443/a', 'B'],
    ['https://git.example.com/a', undefined],
    ['http://127.0.0.1:8080/a', 'C'],
    ['http://127.0.0.1:8081/a', undefined],
  ])('%s gets token %s', (url, token) => {
    expect(gitCredentialFor(credentials, new URL(url))).toBe(token);
  });
});

describe("a caller's url, ref and path", () => {
  it.each([
    [
      { url: 'https://github.com/anthropics/skills' },
      { url: 'https://github.com/anthropics/skills', ref: 'HEAD', path: '' },
    ],
    [
      { url: 'https://GitHub.com:443/a/b.git/', ref: 'main' },
      { url: 'https://github.com/a/b.git', ref: 'main', path: '' },
    ],
    [
      { url: 'https://github.com/a/./x/../b', path: '/skills/pdf/' },
      { url: 'https://github.com/a/b', ref: 'HEAD', path: 'skills/pdf' },
    ],
    [
      { url: 'http://127.0.0.1:8080/r.git', ref: HEX, path: '' },
      { url: 'http://127.0.0.1:8080/r.git', ref: HEX, path: '' },
    ],
    [
      { url: 'https://git.example.com:8443/team/skills', ref: 'refs/tags/v1.2' },
      { url: 'https://git.example.com:8443/team/skills', ref: 'refs/tags/v1.2', path: '' },
    ],
    [
      { url: 'https://github.com/a/b', ref: null, path: null },
      { url: 'https://github.com/a/b', ref: 'HEAD', path: '' },
    ],
  ])('%j is %j', (input, location) => {
    expect(checkGitLocation(input, ALLOWED)).toEqual(location);
  });

  it.each([
    ['file:///etc/passwd', 'GIT_URL_INVALID'],
    ['FILE:///srv/repo.git', 'GIT_URL_INVALID'],
    ['ssh://git@github.com/a/b.git', 'GIT_URL_INVALID'],
    ['git://github.com/a/b.git', 'GIT_URL_INVALID'],
    ['ext::sh -c touch% /tmp/pwned', 'GIT_URL_INVALID'],
    ['git@github.com:a/b.git', 'GIT_URL_INVALID'],
    ['github.com:a/b.git', 'GIT_URL_INVALID'],
    ['/srv/repos/a.git', 'GIT_URL_INVALID'],
    ['./a.git', 'GIT_URL_INVALID'],
    ['C:\\repos\\a.git', 'GIT_URL_INVALID'],
    ['-uhttps://github.com/a/b', 'GIT_URL_INVALID'],
    ['--upload-pack=touch /tmp/pwned', 'GIT_URL_INVALID'],
    ['https://user:pass@github.com/a/b', 'GIT_URL_INVALID'],
    ['https://ghp_token@github.com/a/b', 'GIT_URL_INVALID'],
    ['https://github.com@evil.example/a/b', 'GIT_URL_INVALID'],
    ['https://github.com\\@evil.example/a', 'GIT_URL_INVALID'],
    ['https://github.com/a/b\n', 'GIT_URL_INVALID'],
    ['https://github.com/a b', 'GIT_URL_INVALID'],
    ['https://github.com/a\u0000b', 'GIT_URL_INVALID'],
    ['https://github.com/a\u0085b', 'GIT_URL_INVALID'],
    [`https://github.com/${'a'.repeat(2040)}`, 'GIT_URL_INVALID'],
    ['https://github.com/a/b?x=1', 'GIT_URL_INVALID'],
    ['https://evil.example#@github.com/a', 'GIT_URL_INVALID'],
    ['https://github.com', 'GIT_URL_INVALID'],
    ['https://github.com/', 'GIT_URL_INVALID'],
    ['https://', 'GIT_URL_INVALID'],
    ['', 'GIT_URL_INVALID'],
    [42, 'GIT_URL_INVALID'],
    [undefined, 'GIT_URL_INVALID'],
    ['http://github.com/a/b', 'GIT_HOST_NOT_ALLOWED'],
    ['https://gitlab.com/a/b', 'GIT_HOST_NOT_ALLOWED'],
    ['https://github.com:8443/a/b', 'GIT_HOST_NOT_ALLOWED'],
    ['https://github.com.evil.example/a/b', 'GIT_HOST_NOT_ALLOWED'],
    ['https://127.0.0.1:8080/r.git', 'GIT_HOST_NOT_ALLOWED'],
    ['http://127.0.0.1/r.git', 'GIT_HOST_NOT_ALLOWED'],
  ])('url %j is %s', (url, code) => {
    const expected = code === 'GIT_URL_INVALID' ? { code, field: 'url' } : { code };
    expect(codeOf(() => checkGitLocation({ url }, ALLOWED))).toEqual(expected);
  });

  it('nothing is allowed when no host is', () => {
    expect(codeOf(() => checkGitLocation({ url: 'https://github.com/a/b' }, []))).toEqual({
      code: 'GIT_HOST_NOT_ALLOWED',
    });
  });

  it.each([
    'main',
    'feature/pdf-tools',
    'v1.2.3',
    'refs/heads/main',
    'refs/pull/12/head',
    'HEAD',
    HEX,
    'a1b2c3',
    'release@2026',
    'fünf',
  ])('ref %j is taken as given', (ref) => {
    expect(checkGitLocation({ url: 'https://github.com/a/b', ref }, ALLOWED).ref).toBe(ref);
  });

  it.each([
    '',
    '-b',
    '--upload-pack=touch /tmp/pwned',
    'a..b',
    '../main',
    'a b',
    'a\tb',
    'a\nb',
    'main~1',
    'main^',
    'main^{tree}',
    'a:b',
    'a?',
    'a*',
    'a[1]',
    'a\\b',
    '@',
    'main@{1}',
    '/main',
    'main/',
    'a//b',
    'main.',
    '.hidden',
    'a/.b',
    'main.lock',
    'a.lock/b',
    'x'.repeat(256),
    42,
  ])('ref %j is GIT_URL_INVALID', (ref) => {
    expect(codeOf(() => checkGitLocation({ url: 'https://github.com/a/b', ref }, ALLOWED))).toEqual({
      code: 'GIT_URL_INVALID',
      field: 'ref',
    });
  });

  it.each([
    [undefined, ''],
    ['', ''],
    ['/', ''],
    ['skills/pdf', 'skills/pdf'],
    ['skills/pdf/', 'skills/pdf'],
    ['/skills/pdf', 'skills/pdf'],
    ['.github/skills', '.github/skills'],
    ['my skills/pdf', 'my skills/pdf'],
    ['a/-b', 'a/-b'],
    ['x'.repeat(1024), 'x'.repeat(1024)],
  ])('path %j is %j', (path, normalised) => {
    expect(checkGitLocation({ url: 'https://github.com/a/b', path }, ALLOWED).path).toBe(normalised);
  });

  it.each([
    '..',
    '../x',
    'a/../b',
    'a/..',
    '.',
    './a',
    'a/./b',
    'a//b',
    'a\\b',
    'a\u0000b',
    'a\nb',
    '-a',
    'x'.repeat(1025),
    42,
  ])('path %j is GIT_URL_INVALID', (path) => {
    expect(codeOf(() => checkGitLocation({ url: 'https://github.com/a/b', path }, ALLOWED))).toEqual({
      code: 'GIT_URL_INVALID',
      field: 'path',
    });
  });
});

describe('what git prints', () => {
  const refs = parseLsRemote(
    [
      `${'11'.repeat(20)}\tHEAD`,
      `${'11'.repeat(20)}\trefs/heads/main`,
      `${'22'.repeat(20)}\trefs/heads/v1`,
      `${'33'.repeat(20)}\trefs/tags/v1`,
      `${'44'.repeat(20)}\trefs/tags/v2`,
      `${'55'.repeat(20)}\trefs/tags/v2^{}`,
      'warning: something else',
      '',
    ].join('\n'),
  );
  it.each([
    ['HEAD', '11'.repeat(20)],
    ['main', '11'.repeat(20)],
    ['refs/heads/main', '11'.repeat(20)],
    // A tag and a branch of one name: the tag, as git's rev-parse decides.
    ['v1', '33'.repeat(20)],
    ['refs/heads/v1', '22'.repeat(20)],
    // An annotated tag: the commit it points at, not the tag object.
    ['v2', '55'.repeat(20)],
    ['refs/tags/v2', '55'.repeat(20)],
    ['v3', null],
    ['heads/main', null],
  ])('ref %s names %s', (ref, commit) => {
    expect(pickRef(refs, ref)).toBe(commit);
  });

  it('ls-tree -z records, names with any bytes', () => {
    const output = Buffer.concat([
      Buffer.from(`100644 blob ${'aa'.repeat(20)}\tSKILL.md\0`),
      Buffer.from(`120000 blob ${'bb'.repeat(20)}\ta link\twith tab\0`),
      Buffer.from(`160000 commit ${'cc'.repeat(20)}\tvendor/lib`),
    ]);
    expect(parseLsTree(output)).toEqual([
      { mode: '100644', type: 'blob', id: 'aa'.repeat(20), path: Buffer.from('SKILL.md') },
      { mode: '120000', type: 'blob', id: 'bb'.repeat(20), path: Buffer.from('a link\twith tab') },
      { mode: '160000', type: 'commit', id: 'cc'.repeat(20), path: Buffer.from('vendor/lib') },
    ]);
  });

  it.each([
    ['100644', 'file'],
    ['100664', 'file'],
    ['100755', 'executable'],
    ['100775', 'executable'],
    ['120000', 'symlink'],
    ['160000', 'submodule'],
    ['040000', 'folder'],
    ['40000', 'folder'],
    ['100999', 'other'],
  ])('mode %s is a %s', (mode, kind) => {
    expect(gitEntryKind(mode)).toBe(kind);
  });

  it.each([
    ['version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 12\n', true],
    ['version https://git-lfs.github.com/spec/v2\n', false],
    [' version https://git-lfs.github.com/spec/v1\n', false],
    [`version https://git-lfs.github.com/spec/v1\n${'x'.repeat(2000)}`, false],
    ['', false],
  ])('%j is an LFS pointer: %s', (text, pointer) => {
    expect(isLfsPointer(Buffer.from(text))).toBe(pointer);
  });

  it('a token never comes back: as given, as a Basic credential, or in an Authorization header', () => {
    const header = gitBasicAuthorization('ghp_secret');
    const stderr = [
      'fatal: remote error: seen ghp_secret',
      `fatal: remote error: ${header} and x-access-token:ghp_secret`,
      'Authorization: Bearer other-secret',
    ].join('\n');
    const masked = maskGitSecrets(stderr, ['ghp_secret']);
    expect(masked).not.toContain('ghp_secret');
    expect(masked).not.toContain(header.slice('Basic '.length));
    expect(masked).not.toContain('other-secret');
    expect(masked).toContain('fatal: remote error: seen ***');
  });

  it('a remote message is made short: its last five lines, at most 500 characters', () => {
    expect(shortGitMessage('one\n\ntwo\nthree\nfour\nfive\nsix\n')).toBe('two | three | four | five | six');
    expect(shortGitMessage('x'.repeat(600))).toBe(`…${'x'.repeat(500)}`);
  });
});
