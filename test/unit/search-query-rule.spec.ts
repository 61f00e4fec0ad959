// What a search query may be (docs/search.md#limits), as a table: counted after NFKC and lower-casing.
import {
  MAX_QUERY_CHARS,
  MAX_QUERY_WORDS,
  MAX_RAW_QUERY_UNITS,
  normalizeQuery,
  searchQueryProblems,
} from '../../src/skills/search/search-query-rule';

const words = (n: number): string => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
/** The hostile query: 249 characters, 1,354 after NFKC (`㌖` is `キロメートル`, `㌕` is `キログラム`). */
const HOSTILE = `${'\u3316'.repeat(113)} ${'\u3315'.repeat(135)}`;

const LENGTH = /^q must be 1-256 characters after Unicode normalisation \(NFKC\) and lower-casing/;
const WORDS = /^q must hold at most 16 distinct words after normalisation; it has (\d+)$/;

describe('the search query rule', () => {
  it('holds the bounds the docs state', () => {
    expect({ MAX_QUERY_CHARS, MAX_QUERY_WORDS, MAX_RAW_QUERY_UNITS }).toEqual({
      MAX_QUERY_CHARS: 256,
      MAX_QUERY_WORDS: 16,
      MAX_RAW_QUERY_UNITS: 2048,
    });
  });

  it.each<[string, string, RegExp[]]>([
    ['one word', 'pdf', []],
    ['256 characters', 'a'.repeat(256), []],
    ['257 characters', 'a'.repeat(257), [/; it has 257$/]],
    ['256 emoji (512 UTF-16 units, 256 characters)', '😀'.repeat(256), []],
    ['257 emoji', '😀'.repeat(257), [/; it has 257$/]],
    ['empty', '', [LENGTH]],
    ['whitespace only (a query without words: it finds nothing)', '   \t ', []],
    ['punctuation only', '!!! ---', []],
    ['16 words', words(16), []],
    ['17 words', words(17), [/it has 17$/]],
    ['64 times one word (one distinct word)', `${'pdf '.repeat(63)}pdf!`, []],
    ['16 words that case folding makes 15', `${words(15)} W0`, []],
    ['17 words split by NFKC (`ｗ１-ｗ２` is two words)', `${words(15)} ｗ１６-ｗ１７`, [/it has 17$/]],
    ['43 x ㌖: 43 characters, 258 after NFKC', '\u3316'.repeat(43), [/; it has 258$/]],
    ['42 x ㌖: 252 after NFKC', '\u3316'.repeat(42), []],
    ['14 x ﷺ (U+FDFA, 18 characters each): 252', '\ufdfa'.repeat(14), []],
    ['15 x ﷺ: 270', '\ufdfa'.repeat(15), [/; it has 270$/]],
    ['the hostile query: 249 characters, 1,354 after NFKC', HOSTILE, [/; it has 1354$/]],
    ['İ lower-cases to two code points: 129 x İ is 258', '\u0130'.repeat(129), [/; it has 258$/]],
    ['2,048 UTF-16 units, refused once normalised', 'a'.repeat(MAX_RAW_QUERY_UNITS), [/; it has 2048$/]],
    [
      '2,049 UTF-16 units, refused before normalising',
      'a'.repeat(MAX_RAW_QUERY_UNITS + 1),
      [/; it has over 2048 before$/],
    ],
    ['a NUL', 'pdf\u0000', [/^q must not contain U\+0000 or unpaired surrogates$/]],
    ['an unpaired surrogate', 'pdf\ud800', [/^q must not contain U\+0000 or unpaired surrogates$/]],
  ])('%s', (_, q, expected) => {
    const problems = searchQueryProblems(q);
    expect(problems).toHaveLength(expected.length);
    problems.forEach((problem, i) => expect(problem).toMatch(expected[i]));
    for (const problem of problems) expect(problem).toMatch(/^q /);
  });

  it('refuses by the raw bound no query that fits once normalised: NFKC joins at most six units into one', () => {
    let most = 0;
    for (let cp = 0; cp <= 0x10ffff; cp++) {
      if (cp >= 0xd800 && cp <= 0xdfff) continue;
      const decomposed = String.fromCodePoint(cp).normalize('NFD');
      if (decomposed.length > most && Array.from(decomposed.normalize('NFKC')).length === 1) most = decomposed.length;
    }
    expect(most).toBeLessThanOrEqual(6);
    expect(Math.floor(MAX_RAW_QUERY_UNITS / 6)).toBeGreaterThan(MAX_QUERY_CHARS);
  });

  it('names the field it is given (MCP calls it query)', () => {
    expect(searchQueryProblems(words(17), 'query')).toEqual([
      'query must hold at most 16 distinct words after normalisation; it has 17',
    ]);
  });

  it('counts what normalisation makes', () => {
    expect(normalizeQuery('\u3316')).toBe('キロメートル');
    expect(normalizeQuery('ＰＤＦ Forms')).toBe('pdf forms');
    expect(Array.from(normalizeQuery(HOSTILE))).toHaveLength(1354);
  });

  it('matches both messages a query over both bounds breaks', () => {
    expect(searchQueryProblems(`${words(17)} ${'a'.repeat(256)}`)).toEqual([
      expect.stringMatching(LENGTH),
      expect.stringMatching(WORDS),
    ]);
  });
});
