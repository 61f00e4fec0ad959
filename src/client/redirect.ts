// Where a download's redirect may lead (docs/sandbox-client.md#redirects): a service that keeps its
// packages in an object store answers a download with a redirect to a short-lived URL there. The
// client follows one, to https (or http when the service itself is http), and sends it nothing of
// its credentials; the bytes are checked against the content hash as always, so the store is not
// trusted. Decided from plain values, tested as a table.

/** The redirects a download may answer; 301 and 308 (permanent) are no way to hand out a short-lived URL. */
export const FOLLOWED_REDIRECTS: ReadonlySet<number> = new Set([302, 303, 307]);

export type RedirectTarget = { ok: true; url: URL } | { ok: false; why: string };

/**
 * The URL a redirect answered to `from` leads to: `location` resolved against it, which must be
 * https, or http when the service's own URL (`serviceProtocol`) is http, and must carry no
 * user name or password.
 */
export function redirectTarget(serviceProtocol: string, from: URL, location: string | undefined): RedirectTarget {
  if (location === undefined || location.trim() === '') return { ok: false, why: 'it names no Location' };
  let url: URL;
  try {
    url = new URL(location.trim(), from);
  } catch {
    return { ok: false, why: 'its Location is not a URL' };
  }
  const allowed = serviceProtocol === 'http:' ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) {
    return {
      ok: false,
      why: `it leads to a ${url.protocol.replace(/:$/, '')} URL; only ${allowed.map((p) => p.replace(/:$/, '')).join(' or ')} is followed`,
    };
  }
  if (url.username || url.password) return { ok: false, why: 'its Location carries credentials' };
  return { ok: true, url };
}
