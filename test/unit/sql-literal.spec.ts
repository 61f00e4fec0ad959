import { sqlLiteral } from '../../src/database/prepared-query';

describe('sqlLiteral', () => {
  it.each<[string, unknown, string]>([
    ['null', null, 'NULL'],
    ['undefined', undefined, 'NULL'],
    ['an integer', 42, '42'],
    ['a negative fraction', -0.25, '-0.25'],
    ['true', true, 'TRUE'],
    ['a string with a quote', "o'brien", "'o''brien'"],
    ['a string with a backslash', 'a\\b', " E'a\\\\b'"],
    ['an empty array', [], "'{}'"],
    ['an array of strings', ['a', "b'"], "ARRAY['a', 'b''']"],
  ])('%s', (_, value, literal) => {
    expect(sqlLiteral(value)).toBe(literal);
  });

  it.each<[string, unknown]>([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an object', { a: 1 }],
    ['a bigint', 1n],
    ['an array holding an object', [{}]],
  ])('refuses %s', (_, value) => {
    expect(() => sqlLiteral(value)).toThrow();
  });
});
