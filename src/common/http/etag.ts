// Strong entity tags over content hashes, and If-None-Match matching (RFC 9110 §13.1.2).

/** `"sha256:..."`: the quoted form sent in ETag. */
export function quoteEtag(hash: string): string {
  return `"${hash}"`;
}

/** True when the If-None-Match header names `hash` (weak comparison, as the RFC asks for GET). */
export function ifNoneMatchHits(header: string | undefined, hash: string): boolean {
  if (!header) return false;
  const wanted = quoteEtag(hash);
  // The usual case (a client sending back the one tag it was given) needs no split.
  if (header === wanted) return true;
  return header.split(',').some((raw) => {
    const tag = raw.trim();
    return tag === '*' || tag === wanted || tag === `W/${wanted}`;
  });
}
