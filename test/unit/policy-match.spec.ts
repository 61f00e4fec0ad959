// CONTRACT §7.2 building blocks: the glob a body pattern is, and when a command is compound.
import { globMatch, isCompoundCommand } from '../../src/policy';

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

describe('isCompoundCommand', () => {
  it.each<[string, string]>([
    ['a plain command', 'git status'],
    ['the empty command', ''],
    ['"|" inside single quotes', "echo 'a|b'"],
    ['";" inside single quotes', "echo 'a;b'"],
    ['";" inside double quotes', 'echo "a;b"'],
    ['"&" and ">" inside a quoted message', 'git commit -m "fix: a & b > c"'],
    ['an escaped ";"', 'echo a\\;b'],
    ['an escaped "|"', 'echo a\\|b'],
    ['an escaped space', 'python a\\ b.py'],
    ['an escaped double quote inside double quotes', 'echo "a\\"; ls"'],
    ['a backslash inside single quotes is literal', "echo 'a\\'"],
    ['a single quote inside double quotes', 'echo "it\'s"'],
    ['variables', 'echo $HOME ${USER}'],
    ['parentheses in quotes', 'python -c "print(1)"'],
    ['a "#" comment', 'git status # later'],
  ])('simple: %s', (_title, command) => {
    expect(isCompoundCommand(command)).toBe(false);
  });

  it.each<[string, string]>([
    ['a redirection', 'git log > out.txt'],
    ['a redirection with no spaces', 'git log>out.txt'],
    ['2>&1', 'git log 2>&1'],
    ['&&', 'make && make install'],
    ['||', 'test -f x || touch x'],
    [';', 'cd /; ls'],
    ['a pipe', 'cat a | sh'],
    ['a pipe with no spaces', 'cat a|sh'],
    ['an input redirection', 'sh < script'],
    ['a background job', 'sleep 100 &'],
    ['process substitution', 'diff <(ls a) <(ls b)'],
    ['a newline', 'git status\nrm -rf /'],
    ['a trailing newline (the raw command is checked)', 'git status\n'],
    ['a CR', 'git status\rrm x'],
    ['a backtick', 'echo `id`'],
    ['$(', 'echo $(id)'],
    ['$( inside double quotes, where the shell still runs it', 'echo "$(id)"'],
    ['$( inside single quotes (refused all the same)', "echo '$(id)'"],
    ['an operator right after a closed quote', "echo 'a'|sh"],
    ['an unclosed single quote', "echo 'a"],
    ['an unclosed double quote', 'echo "a'],
    ['a quote closed then reopened', 'echo "a" "b'],
    ['a backslash with nothing after it', 'echo a\\'],
  ])('compound: %s', (_title, command) => {
    expect(isCompoundCommand(command)).toBe(true);
  });
});
