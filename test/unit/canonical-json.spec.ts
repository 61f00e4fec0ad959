import { canonicalDigest, canonicalJson, inOnePiece } from '../../src/package/canonical-json';

describe('canonicalJson (RFC 8785)', () => {
  it.each([
    ['key order', { b: 1, a: [true, null] }, '{"a":[true,null],"b":1}'],
    ['nested objects sorted too', { z: { y: 1, x: 2 } }, '{"z":{"x":2,"y":1}}'],
    ['keys by UTF-16 code units, not code points', { '\u{1F600}': 1, '\uFFFF': 2 }, '{"\u{1F600}":1,"\uFFFF":2}'],
    ['control characters escaped, non-ASCII kept', { s: 'é\n\u0001' }, '{"s":"é\\n\\u0001"}'],
    ['numbers in shortest form', [1.0, 1e21, 0.1, -0], '[1,1e+21,0.1,0]'],
    ['undefined members left out', { a: undefined, b: 'x' }, '{"b":"x"}'],
  ])('%s', (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it.each([
    ['plain ASCII', 'pdf-tools/v1 sha256:ab'],
    ['a quote', 'say "hi"'],
    ['a backslash', 'a\\b'],
    ['control characters', '\u0000\u001f\t'],
    ['DEL', 'a\u007f'],
    ['non-ASCII', 'café \u{1F600}'],
    ['a lone surrogate', 'x\ud800'],
    ['the empty string', ''],
  ])('strings (as values and as keys) are written as JSON.stringify writes them: %s', (_name, text) => {
    expect(canonicalJson(text)).toBe(JSON.stringify(text));
    expect(canonicalJson({ [text]: text })).toBe(`{${JSON.stringify(text)}:${JSON.stringify(text)}}`);
  });

  it('uses the texts it is given for known objects, and writes the others', () => {
    const ref = { b: 1, a: 2 };
    const known = new Map<object, string>([[ref, '{"a":2,"b":1}']]);
    expect(canonicalJson({ z: ref, y: [ref, { d: 1, c: 2 }] }, known)).toBe(
      '{"y":[{"a":2,"b":1},{"c":2,"d":1}],"z":{"a":2,"b":1}}',
    );
    // The text is taken as given: the caller answers for it.
    expect(canonicalJson([ref], new Map([[ref, 'X']]))).toBe('[X]');
    expect(canonicalDigest({ z: ref }, known)).toBe(canonicalDigest({ z: ref }));
  });

  it.each(['', 'plain', 'café \u{1F600}', 'x\ud800', 'a'.repeat(100) + 'é'.repeat(100)])(
    'inOnePiece gives the same text back: %j',
    (text) => {
      const built = [...text].reduce((out, c) => out + c, '');
      expect(inOnePiece(built)).toBe(text);
    },
  );

  it('rejects what JSON cannot carry', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow();
    expect(() => canonicalJson(() => 1)).toThrow();
  });

  it('digests are sha256 of the canonical text', () => {
    expect(canonicalDigest([])).toBe('sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945');
  });
});
