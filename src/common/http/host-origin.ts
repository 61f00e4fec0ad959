// Which Host and Origin headers may reach an endpoint that a browser page must not drive: a page
// on an attacker's domain that resolves to this service (DNS rebinding) sends that domain as its
// Host and its own Origin. Loopback hosts and loopback origins (a page served from this machine,
// which a rebinding page never is) are allowed on any port; other hosts and origins only when
// configured. Plain functions, shared by the configuration and the middleware.

/** Allowed on any port without configuration. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

export interface HostOriginRule {
  /** Host names (lower case, IPv6 in brackets, no port) allowed on any port, loopback included. */
  hosts: ReadonlySet<string>;
  /** Serialized origins (`scheme://host[:port]`, default port left out) allowed to send `Origin`. */
  origins: ReadonlySet<string>;
}

export interface HostOriginRefusal {
  header: 'Host' | 'Origin';
  message: string;
}

/** Longest DNS name (253) plus brackets and room for an IPv6 literal; longer is not a host. */
const MAX_HOST_LENGTH = 255;
const NAME = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;
const IPV6_LITERAL = /^\[[0-9a-f:.]+\]$/;
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._-]+)(:[0-9]{0,5})?$/;

/**
 * The host of `name` as compared (lower case, a final dot dropped, an IPv6 address in its
 * shortest form and in brackets), or null when it is no host name or address.
 */
function canonicalHost(name: string): string | null {
  const lower = name.toLowerCase().replace(/\.$/, '');
  if (lower.length === 0 || lower.length > MAX_HOST_LENGTH) return null;
  if (IPV6_LITERAL.test(lower)) {
    try {
      // The URL parser checks the address and writes it the one way (`[0:0:0:0:0:0:0:1]` is `[::1]`).
      return new URL(`http://${lower}/`).hostname;
    } catch {
      return null;
    }
  }
  return NAME.test(lower) ? lower : null;
}

/**
 * The host a `Host` header names, without its port, or null when the header is no
 * `host[:port]` (user information, a path, spaces, an IPv6 address without brackets).
 */
export function hostOfHeader(header: string): string | null {
  const match = HOST_HEADER.exec(header);
  return match ? canonicalHost(match[1]) : null;
}

/**
 * True when `origin` (as canonicalOrigin writes it) is `http` or `https` on a loopback host, any
 * port. Compared after the URL parser, so `http://localhost.evil.com`, `http://127.0.0.1.nip.io`
 * and `http://[::1].evil` are the foreign hosts they are, and user information was refused before.
 */
export function isLoopbackOrigin(origin: string): boolean {
  let host: string;
  try {
    host = new URL(origin).hostname;
  } catch {
    return false;
  }
  const canonical = canonicalHost(host);
  return canonical !== null && LOOPBACK_HOSTS.includes(canonical);
}

/** `Origin` as compared: the serialized origin of an http(s) URL with nothing after its host. */
export function canonicalOrigin(value: string): string | null {
  if (!/^https?:\/\/[^/?#\s]+$/i.test(value)) return null;
  try {
    const url = new URL(value);
    if (url.username || url.password) return null;
    return url.origin;
  } catch {
    return null;
  }
}

/** A value cut to fit a message: the header is the client's, of any length. */
function quoted(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);
}

/**
 * Why a request with these headers may not reach the endpoint, or null when it may. The Host
 * must name an allowed host (a request without one is refused: every HTTP/1.1 client sends it);
 * an Origin, when sent, must be a loopback origin or a configured one (clients other than
 * browsers send none).
 */
export function hostOriginRefusal(
  host: string | undefined,
  origin: string | undefined,
  rule: HostOriginRule,
): HostOriginRefusal | null {
  if (host === undefined || host === '') {
    return { header: 'Host', message: 'The request has no Host header: send the host name this service is reached at' };
  }
  const name = hostOfHeader(host);
  if (name === null) {
    return {
      header: 'Host',
      message: `The Host header ${quoted(host)} is not a host name or address with an optional port`,
    };
  }
  if (!rule.hosts.has(name)) {
    return {
      header: 'Host',
      message: `The host ${quoted(name)} is not allowed here: only loopback hosts and those named in MCP_ALLOWED_HOSTS are`,
    };
  }
  if (origin !== undefined) {
    const canonical = canonicalOrigin(origin);
    if (canonical === null || !(rule.origins.has(canonical) || isLoopbackOrigin(canonical))) {
      return {
        header: 'Origin',
        message: `The origin ${quoted(canonical ?? origin)} is not allowed here: only loopback origins and those named in MCP_ALLOWED_ORIGINS are`,
      };
    }
  }
  return null;
}

/** Entries of a comma list, trimmed; an empty entry (`a,,b`, a trailing comma) is kept to be refused. */
function entries(list: string | undefined): string[] {
  return list === undefined || list.trim() === '' ? [] : list.split(',').map((entry) => entry.trim());
}

/**
 * The rule for MCP_ALLOWED_HOSTS and MCP_ALLOWED_ORIGINS (comma lists added to the defaults), and
 * every entry that is malformed, named, so that a typo stops the boot instead of refusing clients.
 */
export function hostOriginRule(
  hostList: string | undefined,
  originList: string | undefined,
): { rule: HostOriginRule; problems: string[] } {
  const problems: string[] = [];
  const hosts = new Set(LOOPBACK_HOSTS);
  for (const entry of entries(hostList)) {
    const host = canonicalHost(entry);
    if (host === null) {
      problems.push(
        `MCP_ALLOWED_HOSTS entries must be host names or addresses without a port, IPv6 in brackets (got ${quoted(entry)})`,
      );
    } else hosts.add(host);
  }
  const origins = new Set<string>();
  for (const entry of entries(originList)) {
    // A final slash is how URLs are often written; an Origin header never has one.
    const origin = canonicalOrigin(entry.replace(/\/$/, ''));
    if (origin === null) {
      problems.push(
        `MCP_ALLOWED_ORIGINS entries must be origins such as https://app.example.com or http://localhost:6274, with no path (got ${quoted(entry)})`,
      );
    } else origins.add(origin);
  }
  return { rule: { hosts, origins }, problems };
}
