// The simple-command grammar of docs/tool-policy.md#simple-commands: the only way a command a skill
// constrains is accepted. It is an allowlist that bash reads the same way, never a list of dangerous
// characters: what it does not describe is refused.

/** Outside quotes these end or change a word in bash (or may, in some position): never accepted. */
const UNQUOTED = 1;
/** Inside double quotes bash still expands or escapes after these. */
const DOUBLE_QUOTED = 2;
/**
 * Unquoted `{` and `}` may be brace expansion (`{a,b}` is two words): refused, so the words read are
 * the words bash passes on; the one exception is the word `{}` exactly, which bash leaves alone
 * (`find . -exec ls {} +`).
 */
const BRACE = 4;
/**
 * An unquoted `~` is the home directory at the start of a word and after `=` or `:`: refused there,
 * and wherever a quote comes right before it; `HEAD~1` stays.
 */
const BEFORE_TILDE = 8;
/** In the first word these would make bash read a pathname pattern or an assignment, not a name. */
const FIRST_WORD = 16;

const CLASSES = new Uint8Array(128);
const classify = (chars: string, flag: number): void => {
  for (const char of chars) CLASSES[char.charCodeAt(0)] |= flag;
};
classify(';&|<>()`$\\"\'#!', UNQUOTED);
classify('$`\\"!', DOUBLE_QUOTED);
classify('{}', BRACE);
classify('=:\'"', BEFORE_TILDE);
classify('*?[=', FIRST_WORD);

const hasClass = (code: number, flag: number): boolean => code < 128 && (CLASSES[code] & flag) !== 0;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const TILDE = 0x7e;

/** Words bash reads as its own syntax when they come first, unquoted. */
const RESERVED_WORDS = new Set([
  '!',
  '[[',
  ']]',
  '{',
  '}',
  'case',
  'coproc',
  'do',
  'done',
  'elif',
  'else',
  'esac',
  'fi',
  'for',
  'function',
  'if',
  'in',
  'select',
  'then',
  'time',
  'until',
  'while',
]);

const isBlankCode = (code: number): boolean => code === 0x20 || code === 0x09;
/** C0 controls but tab, and DEL: no command needs them, and NUL cannot reach bash at all. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/**
 * The words of `command` (quotes removed) when it is one simple command of the grammar, else null.
 * Words are separated by spaces or tabs (blanks around the command are ignored); a word is a run of
 * unquoted characters other than `; & | < > ( ) \` $ \ " ' # !`, single-quoted strings (no `'`
 * inside) and double-quoted strings holding none of `$ \` \ " !`, side by side. Beyond that: no
 * control character but tab anywhere (newline and CR included, quoted or not), no text that is not
 * well-formed UTF-16, no unquoted `{` or `}` (except the word `{}`), no unquoted `~` that bash
 * would expand, no unquoted `* ? [ =` in
 * the first word, the first word no reserved word, and at least one word. One pass, linear.
 */
export function readSimpleCommand(command: string): string[] | null {
  if (CONTROL.test(command) || !command.isWellFormed()) return null;
  const words: string[] = [];
  let i = 0;
  const n = command.length;
  // Runs of plain characters are taken as slices, so a long word costs no string per character.
  while (i < n) {
    while (i < n && isBlankCode(command.charCodeAt(i))) i += 1;
    if (i >= n) break;
    const first = words.length === 0;
    const start = i;
    let word = '';
    let quoted = false;
    let braced = false;
    while (i < n && !isBlankCode(command.charCodeAt(i))) {
      const code = command.charCodeAt(i);
      if (code === SINGLE_QUOTE) {
        const close = command.indexOf("'", i + 1);
        if (close < 0) return null;
        word += command.slice(i + 1, close);
        quoted = true;
        i = close + 1;
      } else if (code === DOUBLE_QUOTE) {
        let j = i + 1;
        while (j < n && !hasClass(command.charCodeAt(j), DOUBLE_QUOTED)) j += 1;
        if (j >= n || command.charCodeAt(j) !== DOUBLE_QUOTE) return null;
        word += command.slice(i + 1, j);
        quoted = true;
        i = j + 1;
      } else {
        let j = i;
        for (; j < n; j++) {
          const c = command.charCodeAt(j);
          if (isBlankCode(c) || c === SINGLE_QUOTE || c === DOUBLE_QUOTE) break;
          if (hasClass(c, UNQUOTED)) return null;
          if (first && hasClass(c, FIRST_WORD)) return null;
          if (hasClass(c, BRACE)) braced = true;
          if (c === TILDE && (j === start || hasClass(command.charCodeAt(j - 1), BEFORE_TILDE))) return null;
        }
        word += command.slice(i, j);
        i = j;
      }
    }
    if (braced && command.slice(start, i) !== '{}') return null;
    if (first && !quoted && RESERVED_WORDS.has(word)) return null;
    words.push(word);
  }
  return words.length > 0 ? words : null;
}

/** Whether a command is not one simple command of the grammar: the check refuses it as compound. */
export function isCompoundCommand(command: string): boolean {
  return readSimpleCommand(command) === null;
}
