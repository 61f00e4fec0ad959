// Query words, name variants and the searched body (docs/search.md), as tables of cases.
import { buildSearchQuery, quoteLexeme, StemCache, TermStems } from '../../src/skills/search/search-query';
import { MAX_QUERY_WORDS, MAX_VARIANT_WORD_CHARS } from '../../src/skills/search/search-query-rule';
import {
  MAX_BODY_CHARS,
  nameVariants,
  queryWords,
  searchBody,
  searchTerms,
  wordVariants,
} from '../../src/skills/search/search-terms';

/** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
function osaDistance(a: string[], b: string[]): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => i + j));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** Whether search sees `query` as a typo of the name word `word`: their variants meet. */
function typoMatches(query: string, word: string): boolean {
  const term = searchTerms(query)[0];
  const stored = new Set(nameVariants(word));
  return term.variants.some((v) => stored.has(v));
}

describe('search terms', () => {
  it.each([
    ['pdf', ['pdf']],
    ['Fill a PDF-form!', ['fill', 'a', 'pdf', 'form']],
    ['docker docker DOCKER', ['docker']],
    ['  \t ', []],
    ['!!! --- ???', []],
    ['k8s v2.1', ['k8s', 'v2', '1']],
    ['Résumé naïve', ['résumé', 'naïve']],
    ['ｐｄｆ', ['pdf']], // full-width letters fold (NFKC)
    ['日本語 テスト', ['日本語', 'テスト']],
    ['a_b/c', ['a', 'b', 'c']],
  ])('queryWords(%j) = %j', (q, words) => {
    expect(queryWords(q)).toEqual(words);
  });

  it('keeps at most MAX_QUERY_WORDS distinct words', () => {
    const q = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    expect(queryWords(q)).toHaveLength(MAX_QUERY_WORDS);
  });

  it.each([
    ['ab', false, 0],
    ['git', true, 0],
    ['jira', true, 5],
    ['x'.repeat(MAX_VARIANT_WORD_CHARS), true, 2], // one deletion of a repeated letter is one variant
    [Array.from({ length: MAX_VARIANT_WORD_CHARS }, (_, i) => String.fromCharCode(0x4e00 + i)).join(''), true, 33],
    ['x'.repeat(MAX_VARIANT_WORD_CHARS + 1), false, 0],
    ['\u30ad\u30ed\u30e1\u30fc\u30c8\u30eb'.repeat(6), false, 0], // 36 characters: no variants, no prefix
  ])('%j has a prefix: %s, and %i variants', (q, prefix, count) => {
    const [term] = searchTerms(q);
    expect({ prefix: term.prefix, variants: term.variants.length }).toEqual({ prefix, variants: count });
  });

  it.each([
    ['pdfs', ['pdfs', 'pdf']],
    ['csvs', ['csvs', 'csv']],
    ['class', ['class']], // a double s is no plural
    ['its', ['its']], // too short to guess
    ['docker', ['docker']],
  ])('the forms of %j are %j', (q, forms) => {
    expect(searchTerms(q)[0].forms).toEqual(forms);
  });

  it('short words have no typo variants; longer ones have themselves and one deletion each', () => {
    expect(searchTerms('git')[0].variants).toEqual([]);
    expect(wordVariants('git')).toEqual(['git']);
    expect(wordVariants('jira')).toEqual(['ira', 'jia', 'jir', 'jira', 'jra']);
    expect(wordVariants('ésta')).toEqual(['sta', 'éta', 'ésa', 'ést', 'ésta'].sort());
    expect(nameVariants('pdf-forms')).toEqual(['form', 'forms', 'fors', 'frms', 'foms', 'orms', 'pdf'].sort());
  });

  it.each([
    ['dokcer', 'docker', true], // swap
    ['dcoker', 'docker', true],
    ['dacker', 'docker', true], // substitution
    ['dockr', 'docker', true], // deletion
    ['dockerr', 'docker', true], // insertion
    ['jria', 'jira', true],
    ['pdfs', 'pdf', true],
    ['gitt', 'git', true],
    ['kubernets', 'kubernetes', true],
    ['terrafrom', 'terraform', true],
    ['dckr', 'docker', false], // two deletions
    ['gti', 'git', false], // three letters: no typo matching
    ['python', 'pytest', false],
  ])('%j is a typo of %j: %j', (query, word, expected) => {
    expect(typoMatches(query, word)).toBe(expected);
  });

  it('finds every one-edit typo of a word, checked against an edit distance', () => {
    const words = ['docker', 'jira', 'helm', 'kubernetes', 'slack', 'pdf', 'terraform'];
    const alphabet = 'abcdefghijklmnopqrstuvwxyz'.split('');
    for (const word of words) {
      const chars = Array.from(word);
      const typos = new Set<string>();
      for (let i = 0; i <= chars.length; i++) {
        for (const c of alphabet) typos.add([...chars.slice(0, i), c, ...chars.slice(i)].join(''));
        if (i < chars.length) {
          typos.add([...chars.slice(0, i), ...chars.slice(i + 1)].join(''));
          for (const c of alphabet) typos.add([...chars.slice(0, i), c, ...chars.slice(i + 1)].join(''));
        }
        if (i + 1 < chars.length) {
          const swapped = [...chars];
          [swapped[i], swapped[i + 1]] = [swapped[i + 1], swapped[i]];
          typos.add(swapped.join(''));
        }
      }
      for (const typo of typos) {
        if (Array.from(typo).length < 4) continue;
        expect({ typo, word, found: typoMatches(typo, word) }).toEqual({ typo, word, found: true });
        expect(osaDistance(Array.from(typo), chars)).toBeLessThanOrEqual(1);
      }
    }
  });

  it.each([
    ['---\nname: a\ndescription: b\n---\n# Body\ntext\n', '# Body\ntext\n'],
    ['\uFEFF---\r\nname: a\r\n---\r\nbody\r\n', 'body\r\n'],
    ['---\nname: a\n---  \nbody', 'body'],
    ['---\nname: "---"\nx: y\n---\nbody', 'body'],
    ['---\nname: a\n---', ''],
    ['no frontmatter', 'no frontmatter'],
  ])('the searched body of %j is %j', (md, body) => {
    expect(searchBody(md)).toBe(body);
  });

  it('cuts the body at MAX_BODY_CHARS characters, never inside a character', () => {
    const body = '😀'.repeat(MAX_BODY_CHARS + 10);
    const cut = searchBody(`---\nname: a\n---\n${body}`);
    expect(Array.from(cut)).toHaveLength(MAX_BODY_CHARS);
    expect(cut.endsWith('😀')).toBe(true);
  });
});

describe('search queries', () => {
  const stems = (...lists: Array<string[] | null>): TermStems[] =>
    lists.map((s) => ({ searchable: s !== null, stems: s ?? [] }));

  it('makes one tsquery per term from its forms and stems, with a prefix from three characters', () => {
    const query = buildSearchQuery(searchTerms('the pdfs testing ci'), stems(null, ['pdf', 'pdfs'], ['test'], ['ci']))!;
    expect(query.terms).toEqual([
      { exact: "'pdfs' | 'pdf'", prefix: "'pdfs':*", variants: ['dfs', 'pdf', 'pdfs', 'pds', 'pfs'] },
      { exact: "'testing' | 'test'", prefix: "'testing':*", variants: wordVariants('testing') },
      { exact: "'ci'", prefix: null, variants: [] },
    ]);
  });

  it('leaves words of more than MAX_VARIANT_WORD_CHARS characters without prefix and typo variants', () => {
    const long = 'a'.repeat(MAX_VARIANT_WORD_CHARS + 1);
    const query = buildSearchQuery(searchTerms(`${long} docker`), stems([long], ['docker']))!;
    expect(query.terms).toEqual([
      { exact: `'${long}'`, prefix: null, variants: [] },
      { exact: "'docker'", prefix: "'docker':*", variants: wordVariants('docker') },
    ]);
  });

  it('is nothing when every word is a stop word', () => {
    expect(buildSearchQuery(searchTerms('the and of'), stems(null, null, null))).toBeNull();
  });

  it.each([
    ['pdf', "'pdf'"],
    ["it's", "'it''s'"],
    ['back\\slash', "'back\\\\slash'"],
    ['a:b & c', "'a:b & c'"],
  ])('quotes %j as %s', (lexeme, quoted) => {
    expect(quoteLexeme(lexeme)).toBe(quoted);
  });
});

describe('the stem cache', () => {
  it('keeps the most recently used entries up to its capacity', () => {
    const cache = new StemCache(2);
    const stems = (s: string): TermStems => ({ searchable: true, stems: [s] });
    cache.set('a', stems('a'));
    cache.set('b', stems('b'));
    expect(cache.get('a')).toEqual(stems('a')); // a is now the most recent
    cache.set('c', stems('c')); // evicts b
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual([stems('a'), undefined, stems('c')]);
    const none = new StemCache(0);
    none.set('a', stems('a'));
    expect(none.get('a')).toBeUndefined();
  });
});
