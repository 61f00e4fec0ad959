// What the command prints is data, never terminal control (docs/sandbox-client.md#output): every
// line it writes, to stderr or stdout, goes through `printLines`, which writes each control
// character of the line as an escape. So an error code or message from a hostile server, a name
// in a package or a path cannot clear the screen, set a window title, move the cursor, reorder
// the text with bidi controls or forge a line of its own.

/**
 * Whether `code` (a UTF-16 unit) is written as an escape: C0 (U+0000-U+001F), DEL, C1
 * (U+0080-U+009F), the bidi controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069) and
 * the line and paragraph separators (U+2028, U+2029).
 */
export function isControl(code: number): boolean {
  if (code < 0x20 || (code >= 0x7f && code <= 0x9f)) return true;
  if (code < 0x61c) return false;
  return (
    code === 0x61c ||
    code === 0x200e ||
    code === 0x200f ||
    code === 0x2028 ||
    code === 0x2029 ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

const NAMED: Readonly<Record<number, string>> = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r' };

/**
 * `text` with each control character written as `\n`, `\r`, `\t` or `\uXXXX`. The escapes are
 * JSON's own, so a JSON document passed through stays valid JSON and parses to the same value
 * (JSON.stringify leaves DEL, C1, the bidi controls and the separators raw inside strings).
 * Backslashes are left as they are: an escape only has to be harmless, not reversible.
 */
export function printable(text: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isControl(code)) continue;
    out += text.slice(from, i) + (NAMED[code] ?? `\\u${code.toString(16).padStart(4, '0')}`);
    from = i + 1;
  }
  return from === 0 ? text : out + text.slice(from);
}

/** Writes each of `lines` made printable, each ended by the one newline the command itself adds. */
export function printLines(write: (text: string) => void, lines: readonly string[]): void {
  if (lines.length === 0) return;
  write(lines.map((line) => `${printable(line)}\n`).join(''));
}
