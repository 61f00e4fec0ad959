// CONTRACT §7.2: whether a command is more than one simple command, as a shell would read it.

const OPERATOR_CHARS = new Set([';', '&', '|', '<', '>']);

/**
 * Compound: a newline or CR, a backtick or `$(` anywhere (even inside quotes, where a shell may
 * still substitute them), or any of `;`, `&`, `|`, `<`, `>` outside quotes and not escaped by a
 * backslash: a shell token made only of those characters starts at each of them, so `2>&1` and
 * `a&&b` are compound while `echo 'a;b'`, `echo "a|b"` and `echo a\;b` are not. A quote left open,
 * or a backslash with nothing after it, cannot be read safely and counts as compound. One pass.
 */
export function isCompoundCommand(command: string): boolean {
  if (/[\n\r`]/.test(command) || command.includes('$(')) return true;
  let quote: "'" | '"' | null = null;
  for (let i = 0; i < command.length; i++) {
    const char = command[i];
    if (quote === "'") {
      if (char === "'") quote = null;
    } else if (quote === '"') {
      if (char === '\\') i += 1;
      else if (char === '"') quote = null;
    } else if (char === '\\') {
      if (i + 1 >= command.length) return true;
      i += 1;
    } else if (char === "'" || char === '"') {
      quote = char;
    } else if (OPERATOR_CHARS.has(char)) {
      return true;
    }
  }
  return quote !== null;
}
