// GIT_ALLOWED_HOSTS and GIT_CREDENTIALS as an operator writes them (docs/configuration.md#git-imports):
// read at boot by the configuration, and the host rule the import's allowlist matches URLs with.
// A token is never repeated in a problem.

// C0 and C1 controls and DEL.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Shorter is a typo, not a token any git host issues. */
const MIN_TOKEN_LENGTH = 8;

/** What GIT_ALLOWED_HOSTS allows: one scheme to one host and port (the scheme's default when not written). */
export interface GitHostRule {
  scheme: 'https' | 'http';
  /** Lower case; an IPv6 address in brackets. */
  host: string;
  port: number;
}

/** The port a git URL of each scheme uses when it names none. */
export const DEFAULT_GIT_PORT = { https: 443, http: 80 } as const;
const HOST_NAME = /^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$|^\[[0-9a-f:.]+\]$/;
/** `host[:port]`, `http://host[:port]` or `https://host[:port]` → the rule, or the problem in words. */
export function parseGitHostRule(entry: string): GitHostRule | string {
  const scheme = /^http:\/\//i.test(entry) ? 'http' : 'https';
  const rest = entry.replace(/^https?:\/\//i, '');
  const problem = `"${entry}" is not host[:port] or http://host[:port]`;
  if (rest === '' || /[/?#@\\*\s]/.test(rest) || CONTROL.test(rest) || /^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) {
    return problem;
  }
  const parsed = /^(\[[^\]]*\]|[^:]+)(?::(\d{1,5}))?$/.exec(rest);
  if (!parsed) return problem;
  const host = parsed[1].toLowerCase();
  const port = parsed[2] === undefined ? DEFAULT_GIT_PORT[scheme] : Number(parsed[2]);
  if (!HOST_NAME.test(host) || port < 1 || port > 65535) return problem;
  return { scheme, host, port };
}

/** The rule as GitSettings.allowedHosts holds it: the default port left out, `http://` only for http. */
export function formatGitHostRule(rule: GitHostRule): string {
  const port = rule.port === DEFAULT_GIT_PORT[rule.scheme] ? '' : `:${rule.port}`;
  return `${rule.scheme === 'http' ? 'http://' : ''}${rule.host}${port}`;
}

function splitList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** GIT_ALLOWED_HOSTS: empty (the default) allows nothing, so imports are off. */
export function parseGitAllowedHosts(value: string | undefined): { hosts: string[]; problems: string[] } {
  const hosts: string[] = [];
  const problems: string[] = [];
  for (const entry of splitList(value)) {
    const rule = parseGitHostRule(entry);
    if (typeof rule === 'string') problems.push(`GIT_ALLOWED_HOSTS: ${rule}`);
    else if (!hosts.includes(formatGitHostRule(rule))) hosts.push(formatGitHostRule(rule));
  }
  return { hosts, problems };
}

/**
 * GIT_CREDENTIALS: `host[:port]=token`, comma separated. The token is never repeated in a problem.
 * Keys are kept as `host` or `host:port` (lower case): a key without a port is for the scheme's
 * default port (443, or 80 over http).
 */
export function parseGitCredentials(value: string | undefined): {
  credentials: Map<string, string>;
  problems: string[];
} {
  const credentials = new Map<string, string>();
  const problems: string[] = [];
  splitList(value).forEach((item, index) => {
    const equals = item.indexOf('=');
    const key = equals < 0 ? '' : item.slice(0, equals).trim();
    const token = equals < 0 ? '' : item.slice(equals + 1).trim();
    const where = `GIT_CREDENTIALS entry ${index + 1}`;
    if (key === '' || token === '') {
      problems.push(`${where} is not host[:port]=token`);
      return;
    }
    const rule = /^https?:\/\//i.test(key) ? 'a scheme' : parseGitHostRule(key);
    if (typeof rule === 'string') {
      problems.push(`${where}: the host must be host[:port], without ${rule === 'a scheme' ? 'a scheme' : 'a path'}`);
      return;
    }
    if (token.length > 1024 || CONTROL.test(token) || /\s/u.test(token)) {
      problems.push(`${where}: the token must be up to 1024 printable characters without spaces`);
      return;
    }
    if (token.length < MIN_TOKEN_LENGTH) {
      problems.push(`${where}: the token must be at least ${MIN_TOKEN_LENGTH} characters`);
      return;
    }
    const name = key.includes(':') && !key.endsWith(']') ? `${rule.host}:${rule.port}` : rule.host;
    if (credentials.has(name)) problems.push(`${where}: ${name} is named twice`);
    credentials.set(name, token);
  });
  return { credentials, problems };
}
