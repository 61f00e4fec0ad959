// Input hygiene (docs/limits.md#hostile-input) as tables: storable strings, the budget walk over parsed bodies, raw
// query strings, count limits declared on DTOs, the linear distinctness check, and task labels.
import 'reflect-metadata';
import { validateSync } from 'class-validator';
import {
  childPath,
  jsonBudgetProblems,
  rawJsonShapeProblem,
  MAX_REPORTED_PROBLEMS,
  queryStringProblems,
  unsafeStringReason,
} from '../../src/common/input-hygiene';
import { countLimitProblems, Distinct, MaxItems, MaxKeys } from '../../src/common/http/input-limits';
import { labelProblems } from '../../src/tasks/task-labels';

describe('unsafeStringReason', () => {
  it.each([
    ['plain text', 'pdf-tools', null],
    ['the empty string', '', null],
    ['a surrogate pair (emoji)', 'ok \u{1F600}', null],
    ['U+FFFD itself', '\uFFFD', null],
    ['U+0000', 'a\u0000b', 'NUL'],
    ['U+0000 alone', '\u0000', 'NUL'],
    ['a lone high surrogate', 'a\uD800', 'LONE_SURROGATE'],
    ['a lone low surrogate', '\uDC00a', 'LONE_SURROGATE'],
    ['a reversed pair', '\uDC00\uD800', 'LONE_SURROGATE'],
    ['C1 controls are storable', '\u0001\u007f', null],
  ])('%s', (_title, value, expected) => {
    expect(unsafeStringReason(value)).toBe(expected);
  });
});

describe('childPath', () => {
  it.each([
    ['', 'name', 'name'],
    ['labels', 'additionalSkills', 'labels.additionalSkills'],
    ['skills', 3, 'skills[3]'],
    ['skill_refs', 'pdf-tools', 'skill_refs.pdf-tools'],
    ['labels', 'a b', 'labels["a b"]'],
    ['labels', 'a\u0000', 'labels["a\\u0000"]'],
    ['', '\uD800', '["\\ud800"]'],
  ] as Array<[string, string | number, string]>)('%s + %s', (parent, key, expected) => {
    expect(childPath(parent, key)).toBe(expected);
  });
});

describe('jsonBudgetProblems', () => {
  const budget = { maxDepth: 4, maxContainerItems: 3 };
  it.each([
    ['a clean body', { name: 'x', skills: ['a', 'b'], refs: { a: { n: 1 } } }, []],
    ['U+0000 in a top-level string', { name: 'a\u0000' }, ['name must not contain U+0000']],
    [
      'a lone surrogate in an array item',
      { skills: ['ok', '\uD800'] },
      ['skills[1] must not contain a lone surrogate'],
    ],
    [
      'U+0000 inside a label value',
      { labels: { additionalSkills: 'x\u0000' } },
      ['labels.additionalSkills must not contain U+0000'],
    ],
    ['U+0000 in a key', { labels: { 'k\u0000': 'v' } }, ['labels["k\\u0000"]: a key must not contain U+0000']],
    [
      'every bad string, in document order',
      { a: 'x\u0000', b: ['\uDFFF'], c: { d: 'y\u0000' } },
      ['a must not contain U+0000', 'b[0] must not contain a lone surrogate', 'c.d must not contain U+0000'],
    ],
    [
      'an array over the count, not entered',
      { skills: ['a', 'b', 'c', 'd\u0000'] },
      ['skills has more than 3 elements, the most any list in a request may have'],
    ],
    [
      'an object over the count, not entered',
      { labels: { a: '1', b: '2', c: '3', 'd\u0000': '4' } },
      ['labels has more than 3 keys, the most any object in a request may have'],
    ],
    ['exactly the count', { skills: ['a', 'b', 'c'] }, []],
    ['nesting at the depth', { a: { b: { c: {} } } }, []],
    [
      'nesting past the depth, reported once',
      { a: { b: { c: { d: {} } } }, e: { f: { g: { h: [] } } } },
      ['the body must not be nested deeper than 4 levels'],
    ],
    ['numbers, booleans and null pass', { a: 1, b: true, c: null }, []],
  ])('%s', (_title, body, expected) => {
    expect(jsonBudgetProblems(body, budget)).toEqual(expected);
  });

  it('stops after a bounded number of problems', () => {
    const body = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, '\u0000']));
    expect(jsonBudgetProblems(body)).toHaveLength(MAX_REPORTED_PROBLEMS);
  });

  it('uses the contract defaults: depth 32, 1,000 items', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 32; i++) deep = { d: deep };
    expect(jsonBudgetProblems(deep)).toEqual([]);
    expect(jsonBudgetProblems({ d: deep })).toEqual(['the body must not be nested deeper than 32 levels']);
    expect(jsonBudgetProblems({ a: Array(1000).fill(1) })).toEqual([]);
    expect(jsonBudgetProblems({ a: Array(1001).fill(1) })).toEqual([
      'a has more than 1000 elements, the most any list in a request may have',
    ]);
  });
});

describe('rawJsonShapeProblem: the depth and count rules on the raw bytes, before the parse', () => {
  const budget = { maxDepth: 4, maxContainerItems: 3 };
  const shapeProblems = (text: string): string[] =>
    jsonBudgetProblems(JSON.parse(text), budget).filter((p) => /nested deeper|has more than/.test(p));

  it.each([
    '{}',
    '{"a": [1, 2, 3]}',
    '{"a": {"b": {"c": 1}}}',
    '{"a": "[[[[[,,,,,]]]]]", "b": "{,,,,}"}',
    '{"a\\"b": [1, 2], "c": "x\\\\"}',
    '{"a": [[], [], []], "b": {"x": 1, "y": 2, "z": 3}}',
    '{"a": [1, 2, 3, 4]}',
    '{"a": {"k": {"m": [1, 2, 3, 4, 5]}}}',
    '{"a": {"w": 1, "x": 2, "y": 3, "z": 4}}',
    '{"a b": [1, 2, 3, 4]}',
    '{"a": [0, [1, 2, 3, 4]]}',
    '{"a": {"b": {"c": {"d": 1}}}}',
    '{"a": [[[[]]]]}',
    ' { "a" : [ 1 , 2 , 3 , 4 ] } ',
    '{"a": [1, 2, 3, 4], "b": [1, 2, 3, 4]}',
  ])('%s: the walk of the parsed body finds the same first problem', (text) => {
    expect(rawJsonShapeProblem(Buffer.from(text), budget)).toBe(shapeProblems(text)[0] ?? null);
  });

  it.each([
    ['[[[[[[', 'unclosed brackets'],
    ['{"a": [1, 2, 3, 4, 5}', 'a bracket closed by a brace'],
    ['{"a": "unterminated, , , , ,', 'an unterminated string'],
    ['{"a": [1, 2, 3, 4, 5]]}', 'a bracket too many'],
  ])('%s (%s): left to the parser, which answers that it cannot be parsed', (text) => {
    expect(rawJsonShapeProblem(Buffer.from(text), budget)).toBeNull();
  });

  it('scans the review bodies in a few milliseconds, where JSON.parse takes hundreds', () => {
    const nested = Buffer.from(`{"name":${'['.repeat(500_000)}${']'.repeat(500_000)}}`);
    const keys = Buffer.from(
      JSON.stringify({ labels: Object.fromEntries(Array.from({ length: 75_000 }, (_, i) => [`k${i}`, 'v'])) }),
    );
    expect(rawJsonShapeProblem(nested)).toBe('the body must not be nested deeper than 32 levels');
    expect(rawJsonShapeProblem(keys)).toBe('labels has more than 1000 keys, the most any object in a request may have');
  });
});

describe('queryStringProblems', () => {
  it.each([
    ['no query', '', []],
    ['plain parameters', 'name=pdf&limit=5&q=', []],
    ['percent-encoded UTF-8', 'q=%C3%A9t%C3%A9&name=%F0%9F%98%80', []],
    ['a literal percent sign', 'q=100%', []],
    ['a malformed escape is left as text', 'q=%zz', []],
    ['plus is a space', 'q=a+b', []],
    ['an encoded U+0000', 'q=a%00b', ['query parameter q must not contain U+0000']],
    [
      'an encoded surrogate',
      'namespace=%ED%A0%80',
      ['query parameter namespace must be valid UTF-8 (no lone surrogates)'],
    ],
    ['a stray continuation byte', 'q=%80', ['query parameter q must be valid UTF-8 (no lone surrogates)']],
    ['a truncated sequence', 'q=%E2%82', ['query parameter q must be valid UTF-8 (no lone surrogates)']],
    ['U+0000 in a name', 'a%00=1', ['query parameter ["a\\u0000"]: a key must not contain U+0000']],
    ['a bare name', 'flag&q=%00', ['query parameter q must not contain U+0000']],
    [
      'each bad parameter',
      'q=%00&name=ok&namespace=%FF',
      [
        'query parameter q must not contain U+0000',
        'query parameter namespace must be valid UTF-8 (no lone surrogates)',
      ],
    ],
  ])('%s', (_title, raw, expected) => {
    expect(queryStringProblems(raw)).toEqual(expected);
  });
});

class Parent {
  @MaxItems(2) list?: string[];
}
class Child extends Parent {
  @MaxKeys(1) map?: Record<string, string>;
}

class Listed {
  @Distinct((m: { id?: number }) => m.id, { message: 'items must not repeat an id' }) items?: Array<{ id?: number }>;
  @Distinct() names?: string[];
}

describe('count limits declared on a DTO', () => {
  it.each([
    ['within every limit', { list: ['a', 'b'], map: { a: 'x' } }, []],
    ['an inherited array limit', { list: ['a', 'b', 'c'] }, ['list must contain no more than 2 elements']],
    ['an object key limit', { map: { a: '1', b: '2' } }, ['map must have at most 1 keys']],
    [
      'both',
      { list: [1, 2, 3], map: { a: '1', b: '2' } },
      ['map must have at most 1 keys', 'list must contain no more than 2 elements'],
    ],
    ['a value of another type is left to the DTO', { list: 'abc', map: ['a', 'b'] }, []],
    ['not an object at all', 'x', []],
  ])('%s', (_title, body, expected) => {
    expect(countLimitProblems(Child, body)).toEqual(expected);
  });

  it('no class, no limits', () => {
    expect(countLimitProblems(undefined, { list: [1, 2, 3] })).toEqual([]);
  });
});

describe('Distinct', () => {
  const messages = (value: Partial<Listed>) =>
    validateSync(Object.assign(new Listed(), value)).flatMap((e) => Object.values(e.constraints ?? {}));
  it.each([
    ['distinct names', { names: ['a', 'b'] }, []],
    ['a repeated name', { names: ['a', 'b', 'a'] }, ['names must not repeat an item']],
    ['distinct keys', { items: [{ id: 1 }, { id: 2 }] }, []],
    ['a repeated key', { items: [{ id: 1 }, { id: 1 }] }, ['items must not repeat an id']],
    ['items without a key are left to their own rules', { items: [{}, {}, { id: 1 }] }, []],
  ])('%s', (_title, value, expected) => {
    expect(messages(value)).toEqual(expected);
  });

  it('checks 100,000 items with one set (the event-loop tests bound its time through the app)', () => {
    const names = Array.from({ length: 100_000 }, (_, i) => `n${i}`);
    expect(messages({ names })).toEqual([]);
    expect(messages({ names: [...names, 'n5'] })).toEqual(['names must not repeat an item']);
  });
});

describe('task labels', () => {
  const many = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
  it.each([
    ['ordinary labels', { a: 'b' }, []],
    ['65 labels: only the count is reported', { ...many(64), bad: 5 }, ['labels must have at most 64 keys']],
    [
      'U+0000 inside additionalSkills',
      { additionalSkills: '["a\\u0000"]' },
      ['labels.additionalSkills[0] must not contain U+0000'],
    ],
    [
      'a lone surrogate inside requestedSkillRefs',
      { requestedSkillRefs: '[{"name":"a","namespace":"\\ud800","is_public":false}]' },
      ['labels.requestedSkillRefs[0].namespace must not contain a lone surrogate'],
    ],
    [
      '101 names: only the count is reported',
      { additionalSkills: JSON.stringify(Array(101).fill('')) },
      ['labels.additionalSkills must have at most 100 names'],
    ],
    [
      'a name of the wrong type',
      { additionalSkills: '[5]' },
      ['labels.additionalSkills[0] must be a skill name of 1-64 characters'],
    ],
    ['an odd key is named printably', { 'a b': 5 }, ['labels["a b"] must be a string']],
  ])('%s', (_title, labels, expected) => {
    expect(labelProblems(labels)).toEqual(expected);
  });
});
