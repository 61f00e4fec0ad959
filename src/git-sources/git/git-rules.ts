// The rules of a git import that need no network: a URL against the allowed hosts and credentials
// (src/config/git-settings.ts reads them), and the url, ref and path a caller gives (docs/publishing.md#importing-from-git).
//
// Every problem with the url, ref or path is 400 GIT_URL_INVALID (details.field names which), a host
// or scheme the operator did not allow is 400 GIT_HOST_NOT_ALLOWED. Nothing here runs git.
import { DomainError } from '../../common/errors/domain-error';
import { DEFAULT_GIT_PORT, parseGitHostRule } from '../../config/git-settings';
import type { GitLocation } from './git-remote.types';

export const MAX_GIT_URL_LENGTH = 2048;
/** git's own refs have no length limit; 255 bytes is what common file systems take for one name. */
export const MAX_GIT_REF_LENGTH = 255;
export const MAX_GIT_PATH_LENGTH = 1024;

// C0 and C1 controls, DEL and every kind of space: none belongs in a URL, ref or path.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const SPACE = /\s/u;
const COMMIT_ID = /^[0-9a-f]{40}$/;

/** A full commit id: 40 lower-case hex digits. */
export function isCommitId(value: string): boolean {
  return COMMIT_ID.test(value);
}

function urlPort(url: URL): number {
  const scheme = url.protocol === 'http:' ? 'http' : 'https';
  return url.port === '' ? DEFAULT_GIT_PORT[scheme] : Number(url.port);
}

/** Whether `url`'s scheme, host and port are allowed (ports compared with the defaults filled in). */
export function isGitHostAllowed(allowedHosts: readonly string[], url: URL): boolean {
  const scheme = url.protocol === 'http:' ? 'http' : url.protocol === 'https:' ? 'https' : null;
  if (scheme === null) return false;
  const host = url.hostname.toLowerCase();
  const port = urlPort(url);
  return allowedHosts.some((entry) => {
    const rule = parseGitHostRule(entry);
    return typeof rule !== 'string' && rule.scheme === scheme && rule.host === host && rule.port === port;
  });
}

/** The token configured for `url`'s host and port, if any (GIT_CREDENTIALS). */
export function gitCredentialFor(credentials: ReadonlyMap<string, string>, url: URL): string | undefined {
  const host = url.hostname.toLowerCase();
  const port = urlPort(url);
  const byPort = credentials.get(`${host}:${port}`);
  if (byPort !== undefined) return byPort;
  return port === DEFAULT_GIT_PORT[url.protocol === 'http:' ? 'http' : 'https'] ? credentials.get(host) : undefined;
}

function invalid(field: 'url' | 'ref' | 'path', message: string): DomainError {
  return new DomainError('GIT_URL_INVALID', message, { field });
}

/**
 * The caller's repository URL, checked: only `https://` (or `http://` to a host allowed over
 * http), no credentials, query or fragment, nothing git could take for an option, a local path or
 * another transport. Returns the URL as git is given it: scheme and host in lower case, dot
 * segments resolved, no trailing `/`.
 */
export function checkGitUrl(value: unknown, allowedHosts: readonly string[]): URL {
  if (typeof value !== 'string' || value === '') throw invalid('url', 'url must be a non-empty string');
  if (value.length > MAX_GIT_URL_LENGTH) throw invalid('url', `url must be at most ${MAX_GIT_URL_LENGTH} characters`);
  if (value.startsWith('-')) throw invalid('url', 'url must not start with "-"');
  if (CONTROL.test(value) || SPACE.test(value)) throw invalid('url', 'url must not hold spaces or control characters');
  if (value.includes('\\')) throw invalid('url', 'url must not hold a backslash');
  if (!/^https?:\/\//i.test(value)) {
    throw invalid(
      'url',
      'url must be an https:// (or allowed http://) URL: no file:, ssh:, git:, ext::, user@host:path or local path',
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalid('url', 'url is not a valid URL');
  }
  if (url.username !== '' || url.password !== '' || /^https?:\/\/[^/]*@/i.test(value)) {
    throw invalid('url', 'url must not hold credentials: private repositories use the configured credentials');
  }
  if (value.includes('?') || value.includes('#')) throw invalid('url', 'url must not hold a query or a fragment');
  if (url.pathname === '/' || url.pathname === '') throw invalid('url', 'url must name a repository (a path)');
  if (!isGitHostAllowed(allowedHosts, url)) {
    throw new DomainError('GIT_HOST_NOT_ALLOWED', `${url.protocol}//${url.host} is not an allowed git host`, {
      host: url.host,
    });
  }
  url.pathname = url.pathname.replace(/\/+$/, '');
  return url;
}

/** The URL as a string, as checkGitUrl normalised it (what `source.url` records). */
export function gitUrlText(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/**
 * A ref as `git check-ref-format` would take a branch or tag name (full `refs/...` names too),
 * `HEAD`, or a full 40-hex commit id. Undefined or null means `HEAD`.
 */
export function checkGitRef(value: unknown): string {
  if (value === undefined || value === null) return 'HEAD';
  if (typeof value !== 'string' || value === '') throw invalid('ref', 'ref must be a non-empty string');
  if (Buffer.byteLength(value) > MAX_GIT_REF_LENGTH) {
    throw invalid('ref', `ref must be at most ${MAX_GIT_REF_LENGTH} bytes`);
  }
  if (value.startsWith('-')) throw invalid('ref', 'ref must not start with "-"');
  if (CONTROL.test(value) || SPACE.test(value)) throw invalid('ref', 'ref must not hold spaces or control characters');
  if (/[~^:?*[\\]/.test(value)) throw invalid('ref', 'ref must not hold ~ ^ : ? * [ or \\');
  if (value.includes('..')) throw invalid('ref', 'ref must not hold ".."');
  if (value.includes('@{') || value === '@') throw invalid('ref', 'ref must not be "@" nor hold "@{"');
  if (value.startsWith('/') || value.endsWith('/') || value.includes('//')) {
    throw invalid('ref', 'ref must not start or end with "/" nor hold "//"');
  }
  if (value.endsWith('.')) throw invalid('ref', 'ref must not end with "."');
  for (const part of value.split('/')) {
    if (part.startsWith('.') || part.endsWith('.lock')) {
      throw invalid('ref', 'no part of ref may start with "." or end with ".lock"');
    }
  }
  return value;
}

/**
 * A folder of the repository: relative, `/`-separated. Leading and trailing `/` are dropped;
 * empty, `.` and `..` parts, backslashes, control characters and a leading `-` are refused.
 * Undefined, null and `""` mean the root (`""`).
 */
export function checkGitPath(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid('path', 'path must be a string');
  if (Buffer.byteLength(value) > MAX_GIT_PATH_LENGTH) {
    throw invalid('path', `path must be at most ${MAX_GIT_PATH_LENGTH} bytes`);
  }
  if (CONTROL.test(value)) throw invalid('path', 'path must not hold control characters');
  if (value.includes('\\')) throw invalid('path', 'path must use "/", not "\\"');
  const path = value.replace(/^\/+/, '').replace(/\/+$/, '');
  if (path === '') return '';
  if (path.startsWith('-')) throw invalid('path', 'path must not start with "-"');
  for (const part of path.split('/')) {
    if (part === '') throw invalid('path', 'path must not hold "//"');
    if (part === '.' || part === '..') throw invalid('path', 'path must not hold "." or ".." parts');
  }
  return path;
}

/** The caller's url, ref and path, checked against the allowed hosts (each failure a DomainError). */
export function checkGitLocation(
  input: { url?: unknown; ref?: unknown; path?: unknown },
  allowedHosts: readonly string[],
): GitLocation {
  const url = checkGitUrl(input.url, allowedHosts);
  return { url: gitUrlText(url), ref: checkGitRef(input.ref), path: checkGitPath(input.path) };
}

/** The refs `git ls-remote` printed (`<id>\t<name>` lines), by name. */
export function parseLsRemote(output: string): Map<string, string> {
  const refs = new Map<string, string>();
  for (const line of output.split('\n')) {
    const match = /^([0-9a-f]{40})\t(.+)$/.exec(line);
    if (match) refs.set(match[2], match[1]);
  }
  return refs;
}

/** The names `ref` may stand for, in the order git's rev-parse tries them. */
export function refCandidates(ref: string): string[] {
  if (ref === 'HEAD' || ref.startsWith('refs/')) return [ref];
  return [`refs/tags/${ref}`, `refs/heads/${ref}`];
}

/** The commit `ref` names among the advertised refs (annotated tags peeled), or null. */
export function pickRef(refs: ReadonlyMap<string, string>, ref: string): string | null {
  for (const name of refCandidates(ref)) {
    const id = refs.get(`${name}^{}`) ?? refs.get(name);
    if (id !== undefined) return id;
  }
  return null;
}

/** The user name sent with a configured token (HTTP Basic, the token as the password). */
export const GIT_BASIC_USER = 'x-access-token';

/** The Authorization header value for a configured token. */
export function gitBasicAuthorization(token: string): string {
  return `Basic ${Buffer.from(`${GIT_BASIC_USER}:${token}`).toString('base64')}`;
}

/** `text` with every secret (and its Basic header forms) and any Authorization header value hidden. */
export function maskGitSecrets(text: string, secrets: readonly string[]): string {
  let masked = text;
  for (const secret of secrets) {
    if (secret === '') continue;
    for (const form of [secret, Buffer.from(`${GIT_BASIC_USER}:${secret}`).toString('base64')]) {
      masked = masked.split(form).join('***');
    }
  }
  return masked.replace(/(authorization:\s*)\S+(\s+\S+)?/gi, '$1***');
}

/** A remote's error text made short: its last lines, at most `max` characters. */
export function shortGitMessage(text: string, max = 500): string {
  const lines = text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const joined = lines.slice(-5).join(' | ');
  return joined.length > max ? `…${joined.slice(-max)}` : joined;
}

/** One entry of `git ls-tree -z` output. */
export interface GitTreeEntry {
  mode: string;
  type: string;
  id: string;
  path: Buffer;
}

/** Parses `git ls-tree -z` output (`<mode> <type> <id>\t<path>\0` records). */
export function parseLsTree(output: Buffer): GitTreeEntry[] {
  const entries: GitTreeEntry[] = [];
  let start = 0;
  while (start < output.length) {
    let end = output.indexOf(0, start);
    if (end < 0) end = output.length;
    const record = output.subarray(start, end);
    const tab = record.indexOf(0x09);
    const [mode, type, id] = record.subarray(0, tab).toString('latin1').split(' ');
    entries.push({ mode, type, id, path: Buffer.from(record.subarray(tab + 1)) });
    start = end + 1;
  }
  return entries;
}

export type GitEntryKind = 'file' | 'executable' | 'symlink' | 'submodule' | 'folder' | 'other';

/** What a tree entry's mode makes it (old repositories may hold 100664 and the like: files). */
export function gitEntryKind(mode: string): GitEntryKind {
  if (mode === '40000' || mode === '040000') return 'folder';
  if (mode === '120000') return 'symlink';
  if (mode === '160000') return 'submodule';
  if (/^100[0-7]{3}$/.test(mode)) return (Number.parseInt(mode, 8) & 0o111) !== 0 ? 'executable' : 'file';
  return 'other';
}

/** What a Git LFS pointer file starts with. */
export const LFS_POINTER_PREFIX = 'version https://git-lfs.github.com/spec/v1';

export function isLfsPointer(bytes: Buffer): boolean {
  return bytes.length < 1024 && bytes.subarray(0, LFS_POINTER_PREFIX.length).toString('latin1') === LFS_POINTER_PREFIX;
}

/** What a failed fetch's message says about the ref: an id the remote does not have. */
export function isUnknownObjectMessage(stderr: string): boolean {
  return /not our ref|unadvertised object|couldn't find remote ref|no such remote ref|not a valid object/i.test(stderr);
}
