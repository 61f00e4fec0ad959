// The discovery rows of the benchmark (docs/benchmarks.md#discovery-rows): search at both scales, and one 1 MiB file of a
// package read from the stored zip next to a download of the whole package. `seedDiscovery` runs
// after the main seed: it gives every skill a SKILL.md body drawn from a vocabulary with a
// long-tailed (Zipf-like) word frequency, indexes every active skill for search as a publish would,
// and stores one real package holding a 1 MiB reference file.
import { createHash } from 'node:crypto';
import { Client } from 'pg';
import { buildCanonicalZip, CanonicalFile } from '../../src/package/canonical-zip';
import { manifestRevision, sortManifest } from '../../src/package/manifest';
import { writeSearchDocument } from '../../src/skills/search/search-document';
import { MIN_TYPO_LENGTH } from '../../src/skills/search/search-terms';
import { users } from './catalog';
import { Endpoint } from './load';
import { Ratio } from './report';
import { SkillTarget } from './targets';

/** Words per SKILL.md body, drawn from the vocabulary, besides the skill's own name. */
const BODY_WORDS = 80;
const VOCABULARY_SIZE = 20_000;
/**
 * Word frequencies fall as 1 / (rank + ZIPF_OFFSET): the commonest word is in about a quarter of
 * the bodies (as "file" or "run" would be), a word of rank 1,000 in about 1%.
 */
const ZIPF_OFFSET = 50;
const GIN_INDEXES = ['name_vector', 'name_variants', 'description_vector', 'body_vector'].map(
  (column) => `skill_search_${column}_idx`,
);
/** The public skill whose package holds the 1 MiB file. */
export const REFERENCE_SKILL = 'bench-reference';
export const REFERENCE_FILE = 'references/guide.md';

/** Pronounceable made-up words, a fixed list: the same on every run. */
function vocabulary(): string[] {
  const consonants = 'bdfgklmnprstvz';
  const vowels = 'aeiou';
  const words: string[] = [];
  for (let k = 0; words.length < VOCABULARY_SIZE; k++) {
    let word = '';
    for (let n = k + 1; n > 0; n = Math.floor(n / 70)) {
      const syllable = n % 70;
      word += consonants[syllable % 14] + vowels[Math.floor(syllable / 14)];
    }
    words.push(`${word}r`);
  }
  return words;
}

/** The rank of a word, Zipf-distributed, from a uniform u in [0, 1). */
function zipfRank(u: string): string {
  return `floor(${ZIPF_OFFSET} * power(${(VOCABULARY_SIZE + ZIPF_OFFSET) / ZIPF_OFFSET}::float8, ${u}))::int - ${ZIPF_OFFSET}`;
}

/** A uniform number from a deterministic hash of (skill, position). */
const UNIFORM = `((hashint4(s.id * 131 + g) & 2147483647)::float8 / 2147483648)`;

export async function seedDiscovery(url: string): Promise<void> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    await db.query('BEGIN');
    // Bodies per skill (every version of a skill shares it: only the latest is searched).
    await db.query(`CREATE TEMP TABLE bench_vocabulary (rank integer PRIMARY KEY, word text NOT NULL) ON COMMIT DROP`);
    await db.query(`INSERT INTO bench_vocabulary SELECT * FROM unnest($1::int[], $2::text[])`, [
      vocabulary().map((_, i) => i),
      vocabulary(),
    ]);
    await db.query(
      `UPDATE skill_versions v
          SET skill_md = format(E'---\\nname: %s\\ndescription: %s\\n---\\n# %s\\n\\nUse %s for %s.\\n', s.name, s.description, s.name,
                                s.name, b.body)
         FROM skills s
        CROSS JOIN LATERAL (SELECT string_agg(w.word, ' ') AS body
                              FROM generate_series(1, ${BODY_WORDS}) AS g
                              JOIN bench_vocabulary w ON w.rank = ${zipfRank(UNIFORM)}) b
        WHERE s.id = v.skill_id`,
    );
    // The search documents a publish would write, in bulk: search-document.ts (and the variants of
    // search-terms.ts) in SQL. The GIN indexes take them through their pending lists, merged once
    // at the end, which is much faster than one by one; the service then runs them without.
    for (const index of GIN_INDEXES) await db.query(`ALTER INDEX ${index} SET (fastupdate = on)`);
    await db.query(
      `INSERT INTO skill_search (skill_id, version, namespace, is_public, owner_user_id, scope_key, name, name_word_count,
                                 name_variants, name_vector, description_vector, body_vector)
       SELECT s.id, s.latest_version, s.namespace, s.is_public, s.owner_user_id,
              CASE WHEN s.is_public THEN 'public' WHEN s.namespace = 'default' THEN 'user:' || s.owner_user_id
                   ELSE 'group:' || s.namespace END,
              s.name,
              cardinality(string_to_array(s.name, '-')),
              (SELECT array_agg(DISTINCT x.v) FROM unnest(string_to_array(s.name, '-')) AS w(word)
                CROSS JOIN LATERAL (SELECT w.word UNION
                                    SELECT overlay(w.word PLACING '' FROM i FOR 1)
                                      FROM generate_series(1, length(w.word)) AS i WHERE length(w.word) >= ${MIN_TYPO_LENGTH}) AS x(v)),
              strip(to_tsvector('simple', replace(s.name, '-', ' ')) || to_tsvector('english', replace(s.name, '-', ' '))),
              strip(to_tsvector('english', s.description)),
              strip(to_tsvector('english', split_part(v.skill_md, E'---\\n', 3)))
         FROM skills s JOIN skill_versions v ON v.skill_id = s.id AND v.version = s.latest_version
        WHERE s.deleted_at IS NULL`,
    );
    for (const index of GIN_INDEXES) {
      await db.query(`SELECT gin_clean_pending_list('${index}'::regclass)`);
      await db.query(`ALTER INDEX ${index} SET (fastupdate = off)`);
    }
    await storeReference(db);
    await db.query('COMMIT');
    await db.query('ANALYZE');
  } finally {
    await db.end();
  }
}

/** One public skill whose package holds SKILL.md, a small script and a 1 MiB text reference. */
async function storeReference(db: Client): Promise<void> {
  const lines: string[] = [];
  for (let i = 0, bytes = 0; bytes < 1024 * 1024; i++) {
    lines.push(`Section ${i}: step ${(i * 7919) % 1000} reads record ${i % 97} of the data.\n`);
    bytes += lines[lines.length - 1].length;
  }
  const guide = Buffer.from(lines.join('')).subarray(0, 1024 * 1024);
  const skillMd = `---\nname: ${REFERENCE_SKILL}\ndescription: A skill with a large reference file.\n---\n# Reference\n\nSee ${REFERENCE_FILE}.\n`;
  const files: CanonicalFile[] = [
    { path: 'SKILL.md', mode: '644', data: Buffer.from(skillMd) },
    { path: REFERENCE_FILE, mode: '644', data: guide },
    { path: 'scripts/run.sh', mode: '755', data: Buffer.from('#!/bin/sh\necho reference\n') },
  ];
  const manifest = sortManifest(
    files.map((f) => ({ path: f.path, size: f.data.length, sha256: sha256(f.data), mode: f.mode })),
  );
  const ordered = manifest.map((m) => files.find((f) => f.path === m.path)!);
  const zip = buildCanonicalZip(REFERENCE_SKILL, ordered);
  const contentHash = `sha256:${sha256(zip)}`;
  const creator = users()[0].id;
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO skills (name, namespace, is_public, owner_user_id, created_by_user_id, description, latest_version)
     VALUES ($1, 'default', true, NULL, $2, 'A skill with a large reference file.', 1) RETURNING id`,
    [REFERENCE_SKILL, creator],
  );
  await db.query(`INSERT INTO skill_blobs (content_hash, data, size) VALUES ($1, $2, $3)`, [
    contentHash,
    zip,
    zip.length,
  ]);
  await db.query(
    `INSERT INTO skill_versions (skill_id, version, content_hash, revision, size, file_count, manifest, frontmatter,
                                 skill_md, created_by_user_id, requires)
     VALUES ($1, 1, $2, $3, $4, $5, $6, $7, $8, $9, '{"bins": [], "env": []}')`,
    [
      rows[0].id,
      contentHash,
      manifestRevision(manifest),
      zip.length,
      manifest.length,
      JSON.stringify(manifest),
      JSON.stringify({ name: REFERENCE_SKILL, description: 'A skill with a large reference file.' }),
      skillMd,
      creator,
    ],
  );
  await writeSearchDocument(db, {
    skillId: rows[0].id,
    version: 1,
    name: REFERENCE_SKILL,
    namespace: 'default',
    isPublic: true,
    ownerUserId: null,
    description: 'A skill with a large reference file.',
    skillMd,
  });
}

function sha256(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * What an agent asks `find_skills`: two or three words of a request, taken from the vocabulary at
 * ranks 100-10,000 (each word in about 0.1-3% of the bodies, at both scales alike), one in three
 * with a typo. `broad` queries add a word of the benchmark's skill names, which only ten words
 * make up: each is in a tenth of all names, far more than a name word of a real catalogue.
 */
export function searchQueries(kind: 'typical' | 'broad'): string[] {
  const words = vocabulary();
  // Golden-ratio steps spread the picks evenly; ranks are log-uniform between 100 and 10,000.
  const pick = (n: number): string => words[Math.floor(100 * Math.pow(100, (n * 0.618034) % 1))];
  const typo = (word: string): string => word.slice(0, 1) + word.slice(2, 3) + word.slice(1, 2) + word.slice(3);
  const queries: string[] = [];
  for (let i = 1; queries.length < 60; i++) {
    const request = i % 2 === 0 ? [pick(i), pick(i + 101), pick(i + 211)] : [pick(i), pick(i + 101)];
    if (i % 3 === 0) request[0] = typo(request[0]);
    if (kind === 'broad') request.unshift(['pdf', 'git', 'docx', 'sql', 'slack'][i % 5]);
    queries.push(request.join(' '));
  }
  return queries;
}

export interface DiscoveryScenario {
  endpoints: Endpoint[];
  ratios: Ratio[];
}

const auth = (apiKey: string): Record<string, string> => ({ 'x-api-key': apiKey });

/** `oneRow` is the main scenario's one-row read, the yardstick of the search target. */
export function discoveryScenario(
  small: string,
  large: string,
  skills: SkillTarget[],
  referenceId: number,
  oneRow: Endpoint,
): DiscoveryScenario {
  const search = (baseUrl: string, kind: 'typical' | 'broad', label: string): Endpoint => {
    const queries = searchQueries(kind);
    return {
      label: `GET /api/skills/search, ${kind}, ${label}`,
      baseUrl,
      requests: skills.map((target, i) => ({
        method: 'GET',
        path: `/api/skills/search?q=${encodeURIComponent(queries[i % queries.length])}`,
        headers: auth(target.apiKey),
      })),
      expect: 200,
    };
  };
  const reader = skills.slice(0, 50).map((target) => auth(target.apiKey));
  const file: Endpoint = {
    label: 'GET /api/skills/{id}/files/{path}, 1 MiB',
    baseUrl: small,
    requests: reader.map((headers) => ({
      method: 'GET',
      path: `/api/skills/${referenceId}/files/${REFERENCE_FILE}`,
      headers,
    })),
    expect: 200,
  };
  const download: Endpoint = {
    label: 'GET /api/skills/{id}/download, same package',
    baseUrl: small,
    requests: reader.map((headers) => ({ method: 'GET', path: `/api/skills/${referenceId}/download`, headers })),
    expect: 200,
  };
  const search10k = search(small, 'typical', '10k skills');
  const search100k = search(large, 'typical', '100k skills');
  const broad10k = search(small, 'broad', '10k skills');
  const broad100k = search(large, 'broad', '100k skills');
  return {
    endpoints: [search10k, search100k, broad10k, broad100k, file, download],
    ratios: [
      { row: search10k, label: '÷ one-row read', over: search10k, under: oneRow, bound: 'min', target: 0.5 },
      { row: search100k, label: 'cost ÷ 10k cost', over: search10k, under: search100k, bound: 'max', target: 1.3 },
      { row: broad10k, label: '÷ one-row read', over: broad10k, under: oneRow },
      { row: broad100k, label: 'cost ÷ 10k cost', over: broad10k, under: broad100k },
      { row: file, label: '÷ the download', over: file, under: download },
    ],
  };
}

/** The id of the reference skill, found through the API as any reader would. */
export async function referenceSkillId(baseUrl: string, apiKey: string): Promise<number> {
  const res = await fetch(`${baseUrl}/api/skills?name=${REFERENCE_SKILL}&is_public=true`, { headers: auth(apiKey) });
  const body = (await res.json()) as { items: Array<{ id: number }> };
  if (res.status !== 200 || body.items.length !== 1) throw new Error(`${REFERENCE_SKILL} is missing (${res.status})`);
  return body.items[0].id;
}
