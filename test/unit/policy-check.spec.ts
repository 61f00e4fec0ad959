// The tools the active skills leave visible, the call check, and tool-check (docs/tool-policy.md).
import {
  type ActiveSkill,
  type CallVerdict,
  CompiledPolicyCache,
  type PolicyRef,
  type ToolCall,
  checkCall,
  codePointsOf,
  compileGlob,
  globCost,
  parseAllowedTools,
  toolCheck,
  toolCheckSteps,
  visibleTools,
} from '../../src/policy';

/** Skills a, b, c, ... declaring these `allowed-tools` strings (null: the key is absent). */
function skills(...declared: (string | null)[]): ActiveSkill[] {
  return declared.map((value, i) => {
    const parsed = parseAllowedTools(value !== null, value);
    expect(parsed.errors).toEqual([]);
    return { name: String.fromCharCode(97 + i), allowed_tools: parsed.allowed_tools };
  });
}

const bash = (command?: string): ToolCall => (command === undefined ? { tool: 'Bash' } : { tool: 'Bash', command });
const ALLOWED: CallVerdict = { allowed: true, code: null, denied_by: [] };
const denied = (code: CallVerdict['code'], ...deniedBy: string[]): CallVerdict => ({
  allowed: false,
  code,
  denied_by: deniedBy,
});

describe('golden vectors', () => {
  it.each<[string, string[], ToolCall, CallVerdict]>([
    ['Bash(git:*) allows "git status"', ['Bash(git:*)'], bash('git status'), ALLOWED],
    ['Bash(git:*) allows "git:status"', ['Bash(git:*)'], bash('git:status'), ALLOWED],
    ['Bash(git:*) refuses "git"', ['Bash(git:*)'], bash('git'), denied('COMMAND_NOT_ALLOWED', 'a')],
    ['Bash(git:*) refuses "gitk"', ['Bash(git:*)'], bash('gitk'), denied('COMMAND_NOT_ALLOWED', 'a')],
    [
      'Bash(git:*) refuses "git log > out.txt"',
      ['Bash(git:*)'],
      bash('git log > out.txt'),
      denied('COMMAND_COMPOUND', 'a'),
    ],
    ['Bash(python *) allows "python scripts/a.py"', ['Bash(python *)'], bash('python scripts/a.py'), ALLOWED],
    [
      'Bash(python *) refuses "python3 a.py"',
      ['Bash(python *)'],
      bash('python3 a.py'),
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    [
      'Bash(python *) refuses "Python a.py"',
      ['Bash(python *)'],
      bash('Python a.py'),
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    ['Bash(npm run test:*) allows "npm run test unit"', ['Bash(npm run test:*)'], bash('npm run test unit'), ALLOWED],
    ['Bash(ls|pwd) allows "pwd"', ['Bash(ls|pwd)'], bash('pwd'), ALLOWED],
    [
      'Bash(python *) and Bash(git:*) refuse "python a.py"',
      ['Bash(python *)', 'Bash(git:*)'],
      bash('python a.py'),
      denied('COMMAND_NOT_ALLOWED', 'b'),
    ],
    [
      'Bash(python *) and Bash(git:*) refuse "git status"',
      ['Bash(python *)', 'Bash(git:*)'],
      bash('git status'),
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    [
      'Bash(python *) and Bash(git:*) refuse "ls"',
      ['Bash(python *)', 'Bash(git:*)'],
      bash('ls'),
      denied('COMMAND_NOT_ALLOWED', 'a', 'b'),
    ],
    [
      'Bash(python *) and Bash(git:*) refuse "python git:x"',
      ['Bash(python *)', 'Bash(git:*)'],
      bash('python git:x'),
      denied('COMMAND_NOT_ALLOWED', 'b'),
    ],
    [
      'Bash(python *) and Bash(git:*) refuse a call without a command',
      ['Bash(python *)', 'Bash(git:*)'],
      bash(),
      denied('COMMAND_NOT_ALLOWED', 'a', 'b'),
    ],
  ])('%s', (_title, declared, call, expected) => {
    expect(checkCall(skills(...declared), call)).toEqual(expected);
  });

  it('skills "Read Bash(python *)" and "Read" together make only Read visible', () => {
    expect(visibleTools(skills('Read Bash(python *)', 'Read'))).toEqual(['Read']);
    expect(visibleTools(skills('Read Bash(python *)', 'Read'), ['Bash', 'Read', 'Write'])).toEqual(['Read']);
    expect(checkCall(skills('Read Bash(python *)', 'Read'), bash('python a.py'))).toEqual(
      denied('TOOL_NOT_ALLOWED', 'b'),
    );
  });
});

describe('visibleTools', () => {
  it.each<[string, (string | null)[], string[] | undefined, string[] | null]>([
    ['no active skill, no T: nothing restricted', [], undefined, null],
    ['no active skill, T given: all of T', [], ['Write', 'Bash'], ['Write', 'Bash']],
    ['a skill with null restricts nothing', [null], undefined, null],
    ['a skill with null and T: all of T', [null], ['Read'], ['Read']],
    [
      'null beside a restricting skill: the restricting one decides',
      [null, 'Read Write'],
      undefined,
      ['Read', 'Write'],
    ],
    ['one skill: its heads, sorted', ['Write Read Bash(git:*)'], undefined, ['Bash', 'Read', 'Write']],
    ['a head written twice counts once', ['Bash(git:*) Bash(ls) Bash'], undefined, ['Bash']],
    ['an empty allowed-tools: no tools', [''], undefined, []],
    ['an empty allowed-tools with T: none of T', [''], ['Read'], []],
    ['an empty allowed-tools beside null', ['', null], undefined, []],
    [
      'heads match ignoring case, spelled as the first skill writes them',
      ['bash(git:*) Read', 'Bash READ'],
      undefined,
      ['Read', 'bash'],
    ],
    ['the first spelling within the first skill', ['bash BASH(ls)', 'Bash'], undefined, ['bash']],
    ['with T, T keeps its spelling and order', ['bash(git:*) read'], ['Write', 'READ', 'Bash'], ['READ', 'Bash']],
    ['T repeats count once', ['Read'], ['Read', 'Read'], ['Read']],
    ['T must spell the tool, not a look-alike (KELVIN SIGN)', ['Kill'], ['\u212Aill'], []],
    [
      'MCP names, any case',
      ['mcp__github__create_issue Read', 'mcp__GitHub__create_issue'],
      undefined,
      ['mcp__github__create_issue'],
    ],
    ['disjoint skills leave nothing', ['Read', 'Write'], undefined, []],
    ['three skills', ['Read Write Grep', 'Grep Read', 'Read Grep(x)'], undefined, ['Grep', 'Read']],
  ])('%s', (_title, declared, offered, expected) => {
    expect(visibleTools(skills(...declared), offered)).toEqual(expected);
  });

  it('a stored entry that is not well formed allows nothing', () => {
    expect(visibleTools([{ allowed_tools: ['Read', 'Bash(x', '9z'] }])).toEqual(['Read']);
  });
});

describe('checkCall', () => {
  it.each<[string, (string | null)[], ToolCall, string[] | undefined, CallVerdict]>([
    ['no active skill: anything goes, even compound', [], bash('rm -rf / ; ls'), undefined, ALLOWED],
    ['a skill with null: anything goes', [null], bash('a | b'), undefined, ALLOWED],
    ['a tool no skill names', ['Read'], bash('ls'), undefined, denied('TOOL_NOT_ALLOWED', 'a')],
    [
      'denied by every skill that lacks it, sorted',
      ['Read', 'Bash', 'Write'],
      { tool: 'Read' },
      undefined,
      denied('TOOL_NOT_ALLOWED', 'b', 'c'),
    ],
    ['an empty allowed-tools refuses every tool', [''], { tool: 'Read' }, undefined, denied('TOOL_NOT_ALLOWED', 'a')],
    ['a tool outside T, every skill allowing it', ['Bash'], bash('ls'), ['Read'], denied('TOOL_NOT_ALLOWED')],
    ['T is matched exactly', ['Bash'], { tool: 'bash' }, ['Bash'], denied('TOOL_NOT_ALLOWED')],
    ['a tool in T and allowed', ['Bash(ls)'], bash('ls'), ['Bash'], ALLOWED],
    ['no skill, a tool outside T', [], { tool: 'Write' }, ['Read'], denied('TOOL_NOT_ALLOWED')],
    ['the head ignores case: bash(git:*) and a call of Bash', ['bash(git:*)'], bash('git status'), undefined, ALLOWED],
    [
      'the head ignores case: a call of BASH',
      ['Bash(git:*)'],
      { tool: 'BASH', command: 'git log' },
      undefined,
      ALLOWED,
    ],
    ['a bare tool: no command needed', ['Bash'], bash(), undefined, ALLOWED],
    ['a bare tool: a compound command passes', ['Bash'], bash('make && make install'), undefined, ALLOWED],
    [
      'a body: a call without command is refused',
      ['Bash(git:*)'],
      bash(),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    [
      'bare and body in one skill: the bare entry allows all',
      ['Bash Bash(git:*)'],
      bash('ls | wc'),
      undefined,
      ALLOWED,
    ],
    [
      'bare in one skill, body in another: only the body constrains',
      ['Bash', 'Bash(git:*)'],
      bash('ls'),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'b'),
    ],
    [
      'compound is denied by every skill with a body',
      ['Bash(git:*)', 'Bash', 'Bash(*)'],
      bash('git log 2>&1'),
      undefined,
      denied('COMMAND_COMPOUND', 'a', 'c'),
    ],
    ['OR inside a skill', ['Bash(git:*) Bash(python *)'], bash('python a.py'), undefined, ALLOWED],
    ['OR across case spellings of one skill', ['bash(git:*) Bash(python *)'], bash('git status'), undefined, ALLOWED],
    [
      'AND across skills: both allow',
      ['Bash(python *)', 'Bash(python scripts/*)'],
      bash('python scripts/a.py'),
      undefined,
      ALLOWED,
    ],
    [
      'AND across skills: one refuses',
      ['Bash(python *)', 'Bash(python scripts/*)'],
      bash('python a.py'),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'b'),
    ],
    [
      'two skills with Bash(python *) both pass',
      ['Bash(python *)', 'Bash(python *)'],
      bash('python a.py'),
      undefined,
      ALLOWED,
    ],
    ['the command is trimmed of blanks', ['Bash(git:*)'], bash('  \tgit status  '), undefined, ALLOWED],
    [
      'other Unicode spaces are not trimmed',
      ['Bash(python *)'],
      bash('\u00A0python a.py'),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    [
      'a trailing newline is compound',
      ['Bash(git:*)'],
      bash('git status\n'),
      undefined,
      denied('COMMAND_COMPOUND', 'a'),
    ],
    ['"|" inside quotes is simple', ['Bash(echo *)'], bash("echo 'a|b'"), undefined, ALLOWED],
    ['";" inside quotes is simple', ['Bash(python *)'], bash(`python -c 'import os; print(1)'`), undefined, ALLOWED],
    [
      'an escaped ";" is refused: the grammar has no backslash',
      ['Bash(echo *)'],
      bash('echo a\\;b'),
      undefined,
      denied('COMMAND_COMPOUND', 'a'),
    ],
    ['a quoted space is simple', ['Bash(python *)'], bash("python 'my script.py'"), undefined, ALLOWED],
    [
      "git $'\\'';id #' is refused under Bash(git:*)",
      ['Bash(git:*)'],
      bash("git $'\\'';id #'"),
      undefined,
      denied('COMMAND_COMPOUND', 'a'),
    ],
    [
      "git $'\\'' && id #' is refused under Bash(git:*)",
      ['Bash(git:*)'],
      bash("git $'\\'' && id #'"),
      undefined,
      denied('COMMAND_COMPOUND', 'a'),
    ],
    [
      "git $'\\''|sh #' is refused under Bash(git:*)",
      ['Bash(git:*)'],
      bash("git $'\\''|sh #'"),
      undefined,
      denied('COMMAND_COMPOUND', 'a'),
    ],
    [
      'git status \\; id is refused under Bash(git:*)',
      ['Bash(git:*)'],
      bash('git status \\; id'),
      undefined,
      denied('COMMAND_COMPOUND', 'a'),
    ],
    ['a quoted message is simple', ['Bash(git:*)'], bash('git commit -m "fix: x"'), undefined, ALLOWED],
    ['git log 2>&1 is compound', ['Bash(git:*)'], bash('git log 2>&1'), undefined, denied('COMMAND_COMPOUND', 'a')],
    ['an unclosed quote is compound', ['Bash(echo *)'], bash("echo 'a"), undefined, denied('COMMAND_COMPOUND', 'a')],
    ['$( is compound', ['Bash(echo *)'], bash('echo $(id)'), undefined, denied('COMMAND_COMPOUND', 'a')],
    ['a pattern as written, with its ":"', ['Bash(npm run test:*)'], bash('npm run test:unit'), undefined, ALLOWED],
    [
      'the ":" variant needs the space',
      ['Bash(npm run test:*)'],
      bash('npm run test'),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    ['only the first ":" turns into a space', ['Bash(a:b:*)'], bash('a b:c'), undefined, ALLOWED],
    ['a second ":" stays', ['Bash(a:b:*)'], bash('a b c'), undefined, denied('COMMAND_NOT_ALLOWED', 'a')],
    ['"|" alternatives, the ":" variant of each', ['Bash(ls|git:*)'], bash('git diff'), undefined, ALLOWED],
    [
      'patterns are trimmed after "|": Bash(ls | pwd) allows "pwd"',
      ['Bash(ls | pwd)'],
      bash('pwd'),
      undefined,
      ALLOWED,
    ],
    ['patterns are trimmed after "|": Bash(ls | pwd) allows "ls"', ['Bash(ls | pwd)'], bash('ls'), undefined, ALLOWED],
    ['a trimmed pattern keeps its inner spaces', ['Bash( git log * | ls )'], bash('git log -1'), undefined, ALLOWED],
    ['a trimmed pattern with ":" has its variant', ['Bash(ls | git:*)'], bash('git diff'), undefined, ALLOWED],
    [
      'a blank around a pattern is no wildcard',
      ['Bash(ls | pwd)'],
      bash('pwd -P'),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    ['tabs around a pattern are trimmed too', ['Bash(ls|\tpwd\t)'], bash('pwd'), undefined, ALLOWED],
    [
      'other Unicode spaces around a pattern stay',
      ['Bash(ls|\u00A0pwd)'],
      bash('pwd'),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    ['an empty pattern is no wildcard', ['Bash(ls|)'], bash('x'), undefined, denied('COMMAND_NOT_ALLOWED', 'a')],
    ['a blank pattern is no wildcard', ['Bash(ls| )'], bash('x'), undefined, denied('COMMAND_NOT_ALLOWED', 'a')],
    ['the empty command is no command', ['Bash(ls|)'], bash(''), undefined, denied('COMMAND_COMPOUND', 'a')],
    ['blanks alone are no command', ['Bash(*)'], bash(' '), undefined, denied('COMMAND_COMPOUND', 'a')],
    ['"?" is one character', ['Bash(ls ?)'], bash('ls a'), undefined, ALLOWED],
    ['"?" is not two', ['Bash(ls ?)'], bash('ls ab'), undefined, denied('COMMAND_NOT_ALLOWED', 'a')],
    [
      'a pattern matches the whole command',
      ['Bash(git status)'],
      bash('git status --short'),
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    ['a nested-parenthesis body', ['Bash(echo (a))'], bash('echo (a)'), undefined, denied('COMMAND_COMPOUND', 'a')],
    [
      'an MCP tool with a body',
      ['mcp__fs__read(docs/*)'],
      { tool: 'mcp__fs__read', command: 'docs/a.md' },
      undefined,
      ALLOWED,
    ],
    [
      'an MCP tool with a body, outside it',
      ['mcp__fs__read(docs/*)'],
      { tool: 'mcp__fs__read', command: 'etc/passwd' },
      undefined,
      denied('COMMAND_NOT_ALLOWED', 'a'),
    ],
    ['the empty command against a body', ['Bash(ls)'], bash(''), undefined, denied('COMMAND_COMPOUND', 'a')],
  ])('%s', (_title, declared, call, offered, expected) => {
    expect(checkCall(skills(...declared), call, offered)).toEqual(expected);
  });

  describe('the matching budget of one call, across all its skills (docs/tool-policy.md#budget)', () => {
    const command = `git ${'a'.repeat(16 * 1024 - 4)}`;
    // Each "*<char>*" pattern needs a full scan of the command, and does not find its character.
    const scans = (count: number, from = 0, extra = ''): string =>
      Array.from({ length: count }, (_, i) => `*${String.fromCodePoint(0x4e00 + from + i)}${extra}*`).join('|');
    const many = (count: number, body: (i: number) => string): (string | null)[] =>
      Array.from({ length: count }, (_, i) => `Bash(${body(i)})`);
    const all = (count: number): string[] => Array.from({ length: count }, (_, i) => String.fromCharCode(97 + i));

    it.each<[string, (string | null)[], CallVerdict]>([
      [
        '64 skills of 16 full scans are matched (and refuse)',
        many(64, (i) => scans(16, i * 16)),
        denied('COMMAND_NOT_ALLOWED', ...all(64)),
      ],
      [
        '64 skills of 16 full scans holding ":" (two globs each) are matched',
        many(64, (i) => scans(16, i * 16, ':x')),
        denied('COMMAND_NOT_ALLOWED', ...all(64)),
      ],
      ['64 skills of 15 full scans and git *: allowed', many(64, (i) => `${scans(15, i * 16)}|git *`), ALLOWED],
      [
        '64 skills of 16 patterns with "?" in the middle are matched',
        many(64, (i) => scans(16, i * 16, '?a')),
        denied('COMMAND_NOT_ALLOWED', ...all(64)),
      ],
      [
        '256 skills of 70 full scans: refused before any matching',
        many(256, (i) => scans(70, i * 70)),
        denied('POLICY_TOO_COMPLEX', ...all(256)),
      ],
      [
        'the budget is counted before matching: a match first does not save it',
        [`Bash(git *|${scans(20_000)})`],
        denied('POLICY_TOO_COMPLEX', 'a'),
      ],
      [
        'patterns that need no scan cost little: 256 skills of 70 prefixes and git *',
        many(256, (i) => `${Array.from({ length: 70 }, (_, j) => `cmd${i}-${j} *`).join('|')}|git *`),
        ALLOWED,
      ],
      ['a repeated pattern is counted once', [`Bash(${Array(20_000).fill('*\u4e00*').join('|')}|git *)`], ALLOWED],
      [
        'a skill that allows the tool bare adds nothing',
        [...many(200, (i) => `git *|${scans(1, i)}`), 'Bash'],
        ALLOWED,
      ],
    ])('%s', (_title, declared, expected) => {
      expect(checkCall(skills(...declared), bash(command))).toEqual(expected);
    });

    it('the budget is the sum of every glob’s bound: at it the call is matched, one step less refuses', () => {
      const text = codePointsOf(command);
      const cost = ['*\u4e00*', '*\u4e01*', 'git *'].reduce((sum, glob) => sum + globCost(compileGlob(glob), text), 0);
      const declared = skills('Bash(*\u4e00*|*\u4e01*)', 'Bash(git *)');
      expect(checkCall(declared, bash(command), undefined, cost)).toEqual(denied('COMMAND_NOT_ALLOWED', 'a'));
      expect(checkCall(declared, bash(command), undefined, cost - 1)).toEqual(denied('POLICY_TOO_COMPLEX', 'a', 'b'));
    });

    it.each<[string, string, string, boolean]>([
      ['a pattern without star compares at most the text', 'git status', 'git status', true],
      ['a pattern without star and of another length compares nothing', 'git', command, true],
      ['anchored pieces compare only themselves', 'git *', command, true],
      ['a middle piece scans the text once', '*x*', command, true],
      ['a middle piece with "?" costs its state words per position', `*${'a?'.repeat(40)}*`, command, true],
    ])('globCost bounds the work: %s', (_title, pattern, against, _unused) => {
      const text = codePointsOf(against);
      const glob = compileGlob(pattern);
      const cost = globCost(glob, text);
      const n = text.points.length;
      expect(cost).toBeGreaterThan(0);
      if (!pattern.includes('*')) expect(cost).toBeLessThanOrEqual(n + 1);
      else if (!pattern.slice(1, -1).includes('*') && !pattern.startsWith('*')) expect(cost).toBeLessThan(16);
      else expect(cost).toBeGreaterThanOrEqual(n);
      if (pattern.includes('?')) expect(cost).toBeGreaterThanOrEqual(n * 3);
    });

    it('a non-ASCII command makes a "?" piece cost more per non-ASCII position', () => {
      const glob = compileGlob('*a?b*');
      expect(globCost(glob, codePointsOf('é'.repeat(1000)))).toBeGreaterThan(30 * 1000);
      expect(globCost(glob, codePointsOf('e'.repeat(1000)))).toBeLessThan(2 * 1000 + 200);
    });
  });

  it('a 16 KiB command against a body of many stars is answered', () => {
    const body = `Bash(${'*a'.repeat(2_000)}b)`;
    expect(checkCall(skills(body), bash('a'.repeat(16 * 1024)))).toEqual(denied('COMMAND_NOT_ALLOWED', 'a'));
    expect(checkCall(skills(body), bash(`${'a'.repeat(16 * 1024 - 1)}b`))).toEqual(ALLOWED);
  });
});

describe('toolCheck', () => {
  const ref = (skillId: number, allowedTools: string | null, bins: string[] = [], env: string[] = []): PolicyRef => ({
    skill_id: skillId,
    version: 1,
    allowed_tools: parseAllowedTools(allowedTools !== null, allowedTools).allowed_tools,
    requires: { bins, env },
  });
  const resolved: Record<string, PolicyRef> = {
    'release-audit': ref(1, 'Bash(git:*) Bash(python *) Read', ['git', 'python3'], ['GITHUB_TOKEN']),
    reader: ref(2, 'Read', ['jq']),
    'python-only': ref(3, 'Read Bash(python *)', ['python3']),
    free: ref(4, null, [], ['HOME_DIR']),
    'git-only': ref(5, 'bash(git:*)'),
  };
  // `gone` did not resolve: it is in preload_skills but has no ref.
  const preload = ['gone', 'python-only', 'reader'];

  it('by default the preload skills: only Read is visible and git status is refused', () => {
    expect(toolCheck(resolved, preload, { call: { tool: 'Bash', command: 'git status' } })).toEqual({
      ok: true,
      answer: {
        skills: [
          { name: 'python-only', skill_id: 3, version: 1, allowed_tools: ['Read', 'Bash(python *)'] },
          { name: 'reader', skill_id: 2, version: 1, allowed_tools: ['Read'] },
        ],
        visible_tools: ['Read'],
        requires: { bins: ['jq', 'python3'], env: [] },
        call: { allowed: false, code: 'TOOL_NOT_ALLOWED', denied_by: ['reader'] },
      },
    });
  });

  it.each<
    [string, Parameters<typeof toolCheck>[2], Partial<Record<'names' | 'visible_tools' | 'requires' | 'call', unknown>>]
  >([
    [
      'no call: no call in the answer',
      {},
      { names: ['python-only', 'reader'], visible_tools: ['Read'], call: undefined },
    ],
    ['no active skills', { skills: [] }, { names: [], visible_tools: null, requires: { bins: [], env: [] } }],
    ['no active skills and T', { skills: [], tools: ['Write', 'Bash'] }, { visible_tools: ['Write', 'Bash'] }],
    ['a skill with null', { skills: ['free'] }, { visible_tools: null, requires: { bins: [], env: ['HOME_DIR'] } }],
    [
      'a skill with null and a compound call',
      { skills: ['free'], call: { tool: 'Bash', command: 'a && b' } },
      { call: { allowed: true, code: null, denied_by: [] } },
    ],
    [
      'the VikingBot skill',
      { skills: ['release-audit'], call: { tool: 'Bash', command: 'python scripts/audit.py' } },
      {
        visible_tools: ['Bash', 'Read'],
        requires: { bins: ['git', 'python3'], env: ['GITHUB_TOKEN'] },
        call: { allowed: true, code: null, denied_by: [] },
      },
    ],
    [
      'spelled as the first restricting skill in name order writes it',
      { skills: ['release-audit', 'git-only'], call: { tool: 'Bash', command: 'python a.py' } },
      {
        names: ['git-only', 'release-audit'],
        visible_tools: ['bash'],
        call: { allowed: false, code: 'COMMAND_NOT_ALLOWED', denied_by: ['git-only'] },
      },
    ],
    [
      'T given: its spelling and order',
      { skills: ['release-audit', 'git-only'], tools: ['Write', 'BASH', 'Read'] },
      { visible_tools: ['BASH'] },
    ],
    [
      'a compound call denied by every skill with a body',
      { skills: ['release-audit', 'git-only'], call: { tool: 'Bash', command: 'git log 2>&1' } },
      { call: { allowed: false, code: 'COMMAND_COMPOUND', denied_by: ['git-only', 'release-audit'] } },
    ],
    ['repeated names count once', { skills: ['reader', 'reader'] }, { names: ['reader'], visible_tools: ['Read'] }],
    [
      'a tool outside T',
      { skills: ['reader'], tools: ['Bash'], call: { tool: 'Read' } },
      { visible_tools: [], call: { allowed: false, code: 'TOOL_NOT_ALLOWED', denied_by: [] } },
    ],
    [
      'a command of exactly 16 KiB is checked',
      { skills: ['reader'], call: { tool: 'Read', command: 'x'.repeat(16_384) } },
      { call: { allowed: true, code: null, denied_by: [] } },
    ],
  ])('%s', (_title, request, expected) => {
    const outcome = toolCheck(resolved, preload, request);
    if (!outcome.ok) throw new Error(outcome.rejection.message);
    const { answer } = outcome;
    if ('names' in expected) expect(answer.skills.map((s) => s.name)).toEqual(expected.names);
    if ('visible_tools' in expected) expect(answer.visible_tools).toEqual(expected.visible_tools);
    if ('requires' in expected) expect(answer.requires).toEqual(expected.requires);
    if ('call' in expected) expect(answer.call).toEqual(expected.call);
  });

  it('the order of the request does not change the answer', () => {
    const forward = toolCheck(resolved, preload, { skills: ['release-audit', 'git-only', 'reader'] });
    const backward = toolCheck(resolved, preload, { skills: ['reader', 'git-only', 'release-audit'] });
    expect(forward).toEqual(backward);
  });

  it.each<[string, Parameters<typeof toolCheck>[2], string, object]>([
    ['a name outside the resolved set', { skills: ['reader', 'nope'] }, '"nope"', { unknown_skills: ['nope'] }],
    ['an unresolved preload name, asked for', { skills: ['gone'] }, '"gone"', { unknown_skills: ['gone'] }],
    [
      'names of Object.prototype',
      { skills: ['constructor', '__proto__', 'reader'] },
      '"__proto__", "constructor"',
      { unknown_skills: ['__proto__', 'constructor'] },
    ],
    [
      'a command over 16 KiB',
      { call: { tool: 'Bash', command: 'x'.repeat(16_385) } },
      '16385 bytes',
      { command_bytes: 16_385, max_command_bytes: 16_384 },
    ],
    [
      '16 KiB counted in UTF-8 bytes',
      { call: { tool: 'Bash', command: '€'.repeat(5_462) } },
      '16386 bytes',
      { command_bytes: 16_386, max_command_bytes: 16_384 },
    ],
  ])('VALIDATION_FAILED: %s', (_title, request, message, details) => {
    const outcome = toolCheck(resolved, preload, request);
    expect(outcome).toEqual({
      ok: false,
      rejection: { code: 'VALIDATION_FAILED', message: expect.stringContaining(message), details },
    });
  });
});

describe('compiled policies and the steps of a check', () => {
  it('the cache compiles a version once and keeps the most recently used', () => {
    const cache = new CompiledPolicyCache(2);
    const first = cache.get('1:1:h', ['Bash(git:*)']);
    expect(cache.get('1:1:h', ['ignored: the key names an immutable version'])).toBe(first);
    cache.get('2:1:h', ['Read']);
    cache.get('1:1:h', ['Bash(git:*)']);
    cache.get('3:1:h', ['Write']);
    expect(cache.size).toBe(2);
    expect(cache.get('1:1:h', ['Bash(git:*)'])).toBe(first);
    expect(cache.get('2:1:h', ['Read'])).not.toBe(undefined);
    expect(new CompiledPolicyCache(0).get('1:1:h', ['Read']).byHead.has('read')).toBe(true);
  });

  it('a long check yields between slices and answers what the check at once answers', () => {
    const command = `git ${'a'.repeat(16 * 1024 - 4)}`;
    const refs: Record<string, PolicyRef> = {};
    for (let i = 0; i < 64; i++) {
      const body = Array.from({ length: 16 }, (_, j) => `*${String.fromCodePoint(0x4e00 + i * 16 + j)}*`).join('|');
      refs[`s${i}`] = {
        skill_id: i + 1,
        version: 1,
        allowed_tools: [`Bash(${body}|git *)`],
        requires: { bins: [], env: [] },
      };
    }
    const request = { call: { tool: 'Bash', command } };
    const steps = toolCheckSteps(refs, Object.keys(refs), request);
    let yields = 0;
    let next = steps.next();
    for (; !next.done; next = steps.next()) yields += 1;
    expect(yields).toBeGreaterThan(5);
    expect(next.value).toEqual(toolCheck(refs, Object.keys(refs), request));
    expect(next.value.ok && next.value.answer.call).toEqual(ALLOWED);
  });
});
