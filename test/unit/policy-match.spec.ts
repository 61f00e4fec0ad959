// The glob a body pattern is (docs/tool-policy.md#patterns).
import { globMatch } from '../../src/policy';

describe('globMatch: case-sensitive, whole text, `*` any run, `?` one character', () => {
  it.each<[string, string, boolean]>([
    ['git', 'git', true],
    ['git', 'gitk', false],
    ['git', 'Git', false],
    ['', '', true],
    ['', 'a', false],
    ['*', '', true],
    ['*', 'anything at all / with spaces', true],
    ['**', 'x', true],
    ['git *', 'git status', true],
    ['git *', 'git ', true],
    ['git *', 'git', false],
    ['python *', 'Python a.py', false],
    ['g?t', 'git', true],
    ['g?t', 'gt', false],
    ['g?t', 'gaat', false],
    ['?', '😀', true],
    ['??', '😀', false],
    ['a*a', 'a', false],
    ['a*a', 'aa', true],
    ['*a*b*c*', 'xaybzc', true],
    ['*a*b*c*', 'xcybza', false],
    ['*.py', 'scripts/a.py', true],
    ['*.py', 'scripts/a.pyc', false],
    ['*aab*', 'aaab', true],
    ['*abab?*', 'abaabab', false],
    ['*abab?*', 'abaababx', true],
    ['*a?c*', 'zzabczz', true],
    ['*a?c*', 'zzacz', false],
    ['*?*', '', false],
    ['*??', 'ab', true],
    ['a.b', 'axb', false],
    ['[ab]', '[ab]', true],
    ['[ab]', 'a', false],
    ['a+', 'aa', false],
    ['(x)', '(x)', true],
    ['\\d', '\\d', true],
    ['\\d', '1', false],
  ])('%j against %j: %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  describe('patterns that would make a backtracking matcher explode', () => {
    const command = 'a'.repeat(16 * 1024);
    it.each<[string, string, string, boolean]>([
      ['1,000 stars before a missing "b"', '*a'.repeat(1_000) + 'b', command, false],
      ['1,000 stars around a missing "b"', '*a'.repeat(1_000) + '*b*', command, false],
      ['a piece of 4,000 with "?" that fits at the end', `*${'a?'.repeat(2_000)}b*`, `${command.slice(1)}b`, true],
      ['the same piece with no "b"', `*${'a?'.repeat(2_000)}b*`, command, false],
      ['a literal piece of 8,000 that almost matches everywhere', `*${'a'.repeat(8_000)}b*`, command, false],
      [
        'many distinct code points and a "?"',
        `*${String.fromCodePoint(...Array.from({ length: 4_000 }, (_, i) => 0x4e00 + i))}?*`,
        command,
        false,
      ],
    ])('%s', (_title, pattern, text, expected) => {
      expect(globMatch(pattern, text)).toBe(expected);
    });
  });
});

describe('globMatch against a reference matcher', () => {
  /** The textbook dynamic program over code units: slow but obviously right, for short ASCII inputs. */
  function reference(pattern: string, text: string): boolean {
    let row = new Uint8Array(text.length + 1);
    row[0] = 1;
    for (const p of pattern) {
      const next = new Uint8Array(text.length + 1);
      next[0] = p === '*' ? row[0] : 0;
      for (let j = 1; j <= text.length; j++) {
        if (p === '*') next[j] = row[j] | next[j - 1];
        else next[j] = row[j - 1] && (p === '?' || p === text[j - 1]) ? 1 : 0;
      }
      row = next;
    }
    return row[text.length] === 1;
  }

  // A fixed linear congruential sequence: the same pairs on every run.
  let seed = 12345;
  const next = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const word = (alphabet: string, max: number): string =>
    Array.from({ length: next(max + 1) }, () => alphabet[next(alphabet.length)]).join('');

  it.each<[string, number, () => string, number]>([
    ['short patterns over a, b, * and ?', 20_000, () => word('ab*?', 8), 12],
    // A middle piece of up to 150 code points holding "?", often with "a" 32 times or more: the
    // multi-word state and both kinds of mask of the shift-and.
    ['a long middle piece with ?', 2_000, () => `${word('ab?', 3)}*${word('aaaaaaab?', 150)}*${word('ab?', 3)}`, 220],
  ])('agrees on %s', (_title, pairs, makePattern, textMax) => {
    seed = 12345;
    const disagreements: string[] = [];
    let matches = 0;
    for (let i = 0; i < pairs; i++) {
      const pattern = makePattern();
      // Half the texts are built from the pattern (a quarter then changed at one place), so that
      // long patterns match, and nearly match, often enough.
      let text = word('ab', textMax);
      if (i % 2 === 1) {
        text = pattern.replace(/[*?]/g, (wild) => (wild === '?' ? 'b' : word('ab', 3)));
        if (i % 4 === 3 && text.length > 0) {
          const at = next(text.length);
          text = `${text.slice(0, at)}${text[at] === 'a' ? 'b' : 'a'}${text.slice(at + 1)}`;
        }
      }
      const expected = reference(pattern, text);
      if (expected) matches += 1;
      if (globMatch(pattern, text) !== expected) disagreements.push(`${pattern} ${text}`);
    }
    expect(disagreements).toEqual([]);
    // Both outcomes are well represented, so the agreement means something.
    expect(matches).toBeGreaterThan(pairs / 20);
    expect(matches).toBeLessThan(pairs - pairs / 20);
  });
});
