// docs/packages.md#tool-policy-fields: `allowed-tools` and `requires` as a skill author writes them, good and bad.
import { parse } from 'yaml';
import {
  MAX_PROBLEMS_PER_FIELD,
  type PolicyProblem,
  parseAllowedTools,
  parseRequires,
  parseToolPolicy,
  splitAllowedTools,
} from '../../src/policy';

/** The frontmatter as parseSkillMd produces it: the YAML block parsed with the core schema. */
const frontmatter = (yaml: string): Record<string, unknown> =>
  parse(yaml, { schema: 'core' }) as Record<string, unknown>;
const codes = (problems: PolicyProblem[]): string[] => problems.map((p) => p.code);

const ABSENT = Symbol('absent');

describe('allowed-tools: what is kept', () => {
  it.each<[string, unknown, string[] | null, string[]]>([
    ['absent: restricts nothing', ABSENT, null, []],
    [
      'docs/packages.md#tool-policy-fields: a space-separated string',
      'Read Bash(python *)',
      ['Read', 'Bash(python *)'],
      [],
    ],
    ['docs/packages.md#tool-policy-fields: a comma and a space', 'Bash(git:*), Read', ['Bash(git:*)', 'Read'], []],
    ['commas alone separate', 'Read,Write,Bash', ['Read', 'Write', 'Bash'], []],
    ['tabs and newlines separate', 'Read\n\tWrite  Grep', ['Read', 'Write', 'Grep'], []],
    ['an empty string allows no tool', '', [], []],
    ['only separators allow no tool', ' , ,, ', [], []],
    ['a key with no value allows no tool', null, [], []],
    ['an empty list allows no tool', [], [], ['ALLOWED_TOOLS_LIST']],
    ['a YAML list, with a warning', ['Read', 'Bash(git:*)'], ['Read', 'Bash(git:*)'], ['ALLOWED_TOOLS_LIST']],
    ['list items are trimmed', ['  Read ', '\tBash(python *) '], ['Read', 'Bash(python *)'], ['ALLOWED_TOOLS_LIST']],
    ['list items keep their inner spaces', ['Bash(git log *)'], ['Bash(git log *)'], ['ALLOWED_TOOLS_LIST']],
    ['exact repeats are dropped, first place kept', 'Read Bash(x) Read Bash(x)', ['Read', 'Bash(x)'], []],
    ['a list repeat is dropped after trimming', ['Read', ' Read'], ['Read'], ['ALLOWED_TOOLS_LIST']],
    ['case variants are distinct entries', 'Bash bash BASH', ['Bash', 'bash', 'BASH'], []],
    [
      'MCP names',
      'mcp__server__tool mcp__github__create_issue',
      ['mcp__server__tool', 'mcp__github__create_issue'],
      [],
    ],
    ['heads with digits, ".", "_" and "-"', 'tool.v2 my_tool-x A9', ['tool.v2', 'my_tool-x', 'A9'], []],
    [
      'spaces and commas inside parentheses stay',
      'Bash(git log --format=%h,%s) Read',
      ['Bash(git log --format=%h,%s)', 'Read'],
      [],
    ],
    [
      'nested parentheses',
      'Bash(echo (a)) Bash(python -c print((1)))',
      ['Bash(echo (a))', 'Bash(python -c print((1)))'],
      [],
    ],
    ['a body of patterns split by "|"', 'Bash(ls|pwd)', ['Bash(ls|pwd)'], []],
    ['quotes in a body are kept as written', `Bash(echo 'a b')`, [`Bash(echo 'a b')`], []],
  ])('%s', (_title, value, allowed, warnings) => {
    const result = parseAllowedTools(value !== ABSENT, value === ABSENT ? undefined : value);
    expect(result.errors).toEqual([]);
    expect(result.allowed_tools).toEqual(allowed);
    expect(codes(result.warnings)).toEqual(warnings);
  });
});

describe('allowed-tools: ALLOWED_TOOLS_INVALID naming the entry', () => {
  it.each<[string, unknown, string[], string]>([
    [
      'an unclosed parenthesis takes the rest of the string',
      'Bash(git:* Read',
      [],
      '"Bash(git:* Read" has unbalanced parentheses',
    ],
    ['a closing parenthesis with none open', 'Read) Write', ['Write'], '"Read)" has unbalanced parentheses'],
    ['")" before "("', 'Re)ad(x)', [], '"Re)ad(x)" has unbalanced parentheses'],
    ['one ")" too many at the end', 'Bash(a))', [], '"Bash(a))" has unbalanced parentheses'],
    ['an empty body', 'Bash() Read', ['Read'], '"Bash()" has nothing between its parentheses: write "Bash" alone'],
    ['a blank body', 'Bash(   )', [], '"Bash(   )" has nothing between its parentheses'],
    ['a head starting with a digit', '1Tool Read', ['Read'], '"1Tool" is not a tool name'],
    ['a head with a bad character', 'Read Wr!te', ['Read'], '"Wr!te" is not a tool name'],
    ['a non-ASCII head', 'Réad', [], '"Réad" is not a tool name'],
    ['a space between the head and "("', 'Bash (git:*)', ['Bash'], '"(git:*)" has no tool name before "("'],
    ['a second body', 'Bash(a)(b)', [], '"Bash(a)(b)" has text after its closing parenthesis'],
    ['text after the body', 'Bash(a)Read', [], '"Bash(a)Read" has text after its closing parenthesis'],
    ['a list item with two entries', ['Read Write'], [], '"Read Write" is not a tool name'],
    ['a list item that is a number', ['Read', 42], ['Read'], 'list item 2 is a number, not a string'],
    ['a list item that is a mapping', [{ Bash: 'git' }], [], 'list item 1 is a mapping, not a string'],
    ['an empty list item', ['Read', ' '], ['Read'], 'list item 2 is empty'],
    ['a mapping', { Bash: 'git:*' }, [], 'The allowed-tools field is a mapping'],
    ['a number', 42, [], 'The allowed-tools field is a number'],
    ['a boolean', true, [], 'The allowed-tools field is a boolean'],
  ])('%s', (_title, value, kept, message) => {
    const result = parseAllowedTools(true, value);
    expect(codes(result.errors)).toEqual(['ALLOWED_TOOLS_INVALID']);
    expect(result.errors[0].field).toBe('allowed-tools');
    expect(result.errors[0].message).toContain(message);
    // Only valid entries are kept: a bad declaration never allows more than it wrote.
    expect(result.allowed_tools).toEqual(kept);
  });

  it('reports every bad entry of a string, each by name', () => {
    const result = parseAllowedTools(true, 'Bash() 9x Read Bash(a');
    expect(result.errors.map((p) => p.message)).toEqual([
      expect.stringContaining('"Bash()"'),
      expect.stringContaining('"9x"'),
      expect.stringContaining('"Bash(a"'),
    ]);
    expect(result.allowed_tools).toEqual(['Read']);
  });

  it('reports at most 20 bad entries and counts the rest', () => {
    const value = Array.from({ length: 100 }, (_, i) => `${i}bad`).join(' ');
    const result = parseAllowedTools(true, value);
    expect(result.errors).toHaveLength(MAX_PROBLEMS_PER_FIELD + 1);
    expect(result.errors[MAX_PROBLEMS_PER_FIELD].message).toContain('80 more problems');
  });

  it('shortens a long entry in its message', () => {
    const entry = `Bash(${'x'.repeat(10_000)}`;
    const [error] = parseAllowedTools(true, entry).errors;
    expect(error.message.length).toBeLessThan(300);
    expect(error.message).toContain('"Bash(xxxx');
  });

  it('reads a huge declaration: 100,000 entries, and an unclosed parenthesis before 200,000 more', () => {
    const many = parseAllowedTools(true, 'Read Bash(git:*) '.repeat(50_000));
    expect(many.allowed_tools).toEqual(['Read', 'Bash(git:*)']);
    const unclosed = parseAllowedTools(true, `Bash(${'( '.repeat(100_000)}`);
    expect(codes(unclosed.errors)).toEqual(['ALLOWED_TOOLS_INVALID']);
    expect(splitAllowedTools('a,'.repeat(100_000))).toHaveLength(100_000);
  });
});

describe('requires: where it is read and what it holds', () => {
  it.each<[string, unknown, { bins: string[]; env: string[] }, string | null]>([
    ['no metadata', undefined, { bins: [], env: [] }, null],
    ['metadata without requires', { author: 'me' }, { bins: [], env: [] }, null],
    ['metadata that is not a mapping (reported elsewhere)', 'text', { bins: [], env: [] }, null],
    [
      'VikingBot, sorted',
      { vikingbot: { requires: { bins: ['python3', 'git'], env: ['GITHUB_TOKEN'] } } },
      { bins: ['git', 'python3'], env: ['GITHUB_TOKEN'] },
      'metadata.vikingbot.requires',
    ],
    ['OpenClaw', { openclaw: { requires: { bins: ['jq'] } } }, { bins: ['jq'], env: [] }, 'metadata.openclaw.requires'],
    ['plain metadata.requires', { requires: { env: 'API_KEY' } }, { bins: [], env: ['API_KEY'] }, 'metadata.requires'],
    [
      'a string is one entry',
      { requires: { bins: 'git', env: 'A' } },
      { bins: ['git'], env: ['A'] },
      'metadata.requires',
    ],
    [
      'VikingBot first, the others ignored',
      { vikingbot: { requires: { bins: 'a' } }, openclaw: { requires: { bins: 'b' } }, requires: { bins: 'c' } },
      { bins: ['a'], env: [] },
      'metadata.vikingbot.requires',
    ],
    [
      'OpenClaw before the plain key',
      { openclaw: { requires: { bins: 'b' } }, requires: { bins: 'c' } },
      { bins: ['b'], env: [] },
      'metadata.openclaw.requires',
    ],
    [
      'a VikingBot entry without requires falls through',
      { vikingbot: { emoji: 'x' }, openclaw: { requires: { bins: 'b' } } },
      { bins: ['b'], env: [] },
      'metadata.openclaw.requires',
    ],
    [
      'a null requires falls through',
      { vikingbot: { requires: null }, requires: { bins: 'c' } },
      { bins: ['c'], env: [] },
      'metadata.requires',
    ],
    [
      'a VikingBot value that is not a mapping falls through',
      { vikingbot: 'on', requires: { bins: 'c' } },
      { bins: ['c'], env: [] },
      'metadata.requires',
    ],
    [
      'repeats dropped',
      { requires: { bins: ['jq', 'awk', 'jq'], env: ['B', 'A', 'B'] } },
      { bins: ['awk', 'jq'], env: ['A', 'B'] },
      'metadata.requires',
    ],
    ['empty lists and null members', { requires: { bins: [], env: null } }, { bins: [], env: [] }, 'metadata.requires'],
    [
      "OpenClaw's other keys are left to OpenClaw",
      { openclaw: { emoji: '🔗', requires: { anyBins: ['rg', 'grep'], config: ['x.y'], env: ['REMOTE_AGENT_URL'] } } },
      { bins: [], env: ['REMOTE_AGENT_URL'] },
      'metadata.openclaw.requires',
    ],
    [
      'env names with "_" and digits',
      { requires: { env: ['_X', 'A1_B2'] } },
      { bins: [], env: ['A1_B2', '_X'] },
      'metadata.requires',
    ],
    [
      'bin names with dots, dashes and "+"',
      { requires: { bins: ['g++', 'node.js', 'x-y'] } },
      { bins: ['g++', 'node.js', 'x-y'], env: [] },
      'metadata.requires',
    ],
  ])('%s', (_title, metadata, requires, source) => {
    const result = parseRequires(metadata);
    expect(result.errors).toEqual([]);
    expect(result.requires).toEqual(requires);
    expect(result.source).toBe(source);
  });

  it.each<[string, unknown, string, { bins: string[]; env: string[] }]>([
    [
      'an env name with "-"',
      { requires: { env: ['GITHUB-TOKEN', 'OK'] } },
      '"GITHUB-TOKEN" is not an environment variable name',
      { bins: [], env: ['OK'] },
    ],
    [
      'an env name starting with a digit',
      { requires: { env: '1X' } },
      '"1X" is not an environment variable name',
      { bins: [], env: [] },
    ],
    ['an empty env name', { requires: { env: [''] } }, '"" is not an environment variable name', { bins: [], env: [] }],
    [
      'a bin given as a path',
      { vikingbot: { requires: { bins: ['/usr/bin/git'] } } },
      '"/usr/bin/git" is not a command name',
      { bins: [], env: [] },
    ],
    ['a bin with a space', { requires: { bins: 'my tool' } }, '"my tool" is not a command name', { bins: [], env: [] }],
    ['an empty bin', { requires: { bins: [''] } }, 'holds an empty command name', { bins: [], env: [] }],
    [
      'a bin that is a number',
      { requires: { bins: ['git', 3] } },
      'metadata.requires.bins item 2 is a number',
      { bins: ['git'], env: [] },
    ],
    [
      'bins as a mapping',
      { requires: { bins: { git: true } } },
      'metadata.requires.bins is a mapping',
      { bins: [], env: [] },
    ],
    ['env as a boolean', { requires: { env: true } }, 'metadata.requires.env is a boolean', { bins: [], env: [] }],
    [
      'requires as a string',
      { vikingbot: { requires: 'git' } },
      'metadata.vikingbot.requires is a string',
      { bins: [], env: [] },
    ],
    [
      'requires as a list',
      { openclaw: { requires: ['git'] } },
      'metadata.openclaw.requires is a list',
      { bins: [], env: [] },
    ],
    [
      'a bad VikingBot requires does not fall back',
      { vikingbot: { requires: 7 }, requires: { bins: 'c' } },
      'metadata.vikingbot.requires is a number',
      { bins: [], env: [] },
    ],
  ])('REQUIRES_INVALID: %s', (_title, metadata, message, kept) => {
    const result = parseRequires(metadata);
    expect(codes(result.errors)).toEqual(['REQUIRES_INVALID']);
    expect(result.errors[0].message).toContain(message);
    expect(result.errors[0].field).toBe(result.source);
    expect(result.requires).toEqual(kept);
  });
});

describe('parseToolPolicy: skills as their runtimes write them', () => {
  const vikingBot = `
name: release-audit
description: Audit a release and write a risk report.
allowed-tools: Bash(git:*) Bash(python *) Read
metadata:
  vikingbot:
    requires:
      bins: [python3, git]
      env: [GITHUB_TOKEN]
`;

  it('the VikingBot example of issue 8 has no problem', () => {
    expect(parseToolPolicy(frontmatter(vikingBot))).toEqual({
      allowed_tools: ['Bash(git:*)', 'Bash(python *)', 'Read'],
      requires: { bins: ['git', 'python3'], env: ['GITHUB_TOKEN'] },
      errors: [],
      warnings: [],
    });
  });

  it('an OpenClaw skill with its metadata on one JSON line', () => {
    const openClaw =
      'name: jq-helper\ndescription: Query JSON.\nmetadata: {"openclaw": {"requires": {"bins": ["jq"]}}}\n';
    expect(parseToolPolicy(frontmatter(openClaw))).toEqual({
      allowed_tools: null,
      requires: { bins: ['jq'], env: [] },
      errors: [],
      warnings: [],
    });
  });

  it('a skill with neither key restricts nothing and needs nothing', () => {
    expect(parseToolPolicy({ name: 'x', description: 'y' })).toEqual({
      allowed_tools: null,
      requires: { bins: [], env: [] },
      errors: [],
      warnings: [],
    });
  });

  const swap =
    (...pairs: [string, string][]) =>
    (yaml: string): string =>
      pairs.reduce((text, [from, to]) => text.replace(from, to), yaml);

  it.each<[string, (yaml: string) => string, string[], string[]]>([
    ['an unclosed parenthesis', swap(['Bash(python *) Read', 'Bash(python * Read']), ['ALLOWED_TOOLS_INVALID'], []],
    ['an empty body', swap(['Bash(python *) Read', 'Bash() Read']), ['ALLOWED_TOOLS_INVALID'], []],
    [
      'a list holding a number',
      swap(['allowed-tools: Bash(git:*) Bash(python *) Read', 'allowed-tools: [Read, 42]']),
      ['ALLOWED_TOOLS_INVALID'],
      ['ALLOWED_TOOLS_LIST'],
    ],
    ['an env name with "-"', swap(['env: [GITHUB_TOKEN]', 'env: [GITHUB-TOKEN]']), ['REQUIRES_INVALID'], []],
    [
      'a bin given as a path',
      swap(['bins: [python3, git]', 'bins: [python3, /usr/bin/git]']),
      ['REQUIRES_INVALID'],
      [],
    ],
    [
      'requires as a plain string',
      swap(['requires:\n      bins: [python3, git]\n      env: [GITHUB_TOKEN]', 'requires: git']),
      ['REQUIRES_INVALID'],
      [],
    ],
    [
      'a bad head and a bad env name at once',
      swap([' Read\n', ' Re@d\n'], ['GITHUB_TOKEN', 'GITHUB TOKEN']),
      ['ALLOWED_TOOLS_INVALID', 'REQUIRES_INVALID'],
      [],
    ],
  ])('a malformed VikingBot variant: %s', (_title, change, errors, warnings) => {
    const yaml = change(vikingBot);
    expect(yaml).not.toBe(vikingBot);
    const result = parseToolPolicy(frontmatter(yaml));
    expect(codes(result.errors)).toEqual(errors);
    expect(codes(result.warnings)).toEqual(warnings);
  });
});
