// The differential check of the simple-command grammar against real bash
// (docs/tool-policy.md#differential-check): a seeded generator of shell commands, and a runner that
// has bash run each one with a PATH of recording stubs and reports what actually ran.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Program names that are no bash builtin or keyword, so bash looks each one up in PATH. */
export const STUB_NAMES = ['git', 'ls', 'python', 'npm', 'cat', 'grep', 'make', 'gitk', 'id', 'sh', 'rm', 'curl'];

/** A fixed sequence (mulberry32): the same commands on every run for one seed. */
export function seededRandom(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n: number): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) / 4294967296) * n;
  };
}

/** Pieces of words: every quoting form, escapes, comments, expansions, metacharacters and globs. */
// prettier-ignore
const FRAGMENTS = [
  // plain
  'a', 'x1', '-v', '--opt=val', 'fix:', 'a.b', 'scripts/a.py', '@', '%', '+', ',', ':', '=', 'é', '^', '-', '.', 'HEAD~1', 'a=b',
  // single quotes
  "'a b'", "'a;b'", "'$x'", "'\\'", "''", "'\"'", "'#'", "'!'", "'a|b'", "'`id`'", "'$(id)'", "'\t'", "'", "'a\nb'",
  // double quotes
  '"a b"', '"fix: x"', '""', '"a\'b"', '"$x"', '"\\\\"', '"a\\"b"', '"!x"', '"', '"`id`"', '"$(id)"', '"a;b|c&d"', '"${x}"',
  // ANSI-C and locale quotes
  "$'\\''", "$'a\\nb'", "$'x'", "$'\\x3b'", '$"x"', "$''",
  // the quoting tricks of the issue: an ANSI-C quote whose escaped "'" a character list reads as a
  // closing quote, and a comment swallowing the rest
  "$'\\'';id #'", "$'\\'' && id #'", "$'\\''|sh #'", "';id #'", '"\\";id #"',
  // escapes
  '\\;', '\\ ', '\\a', '\\\\', "\\'", '\\"', '\\n', '\\', '\\$x', '\\|',
  // comments
  '#', '# c', 'a#b', ' #',
  // expansions
  '$x', '${x}', '$(id)', '`id`', '$((1+1))', '$1', '$@', '$$', '$?', '${x:-id}', '$', '$PATH', '$_',
  // metacharacters and operators
  ';', '&', '&&', '|', '||', '>', '<', '2>&1', '>|', '<<<', '(', ')', '<(id)', '!', ';id', '|sh', '&& id', '>out',
  // globs, braces, tilde
  '*', '?', '[a]', '*.py', '{a,b}', '{1..2}', '{}', '{', '}', '~', '~/x', '@(a)', '[', ']', 'a=~',
  // whitespace
  '\t', '\n', '\r', '  ', ' \t ',
];
const PLAIN = ['a', 'b', 'status', '-m', 'x.txt', "'a b'", '"fix: x"', "''", '--x=1', 'HEAD~1', '*.py', '{}'];
const SEPARATORS = [' ', ' ', ' ', '\t', '  ', ' \t'];
/** Ways to write a first word, then words bash reads as its own syntax when they come first. */
const FIRST_WORD_FORMS: Array<(name: string) => string> = [
  (name) => name,
  (name) => name,
  (name) => name,
  (name) => name,
  (name) => name,
  (name) => name,
  (name) => `'${name}'`,
  (name) => `"${name}"`,
  (name) => `${name.slice(0, 1)}'${name.slice(1)}'`,
  (name) => `${name.slice(0, 1)}"${name.slice(1)}"`,
  (name) => `${name}''`,
  (name) => `\\${name}`,
  (name) => `$'${name}'`,
  (name) => `A=1 ${name}`,
  (name) => `time ${name}`,
  (name) => `${name}*`,
  (name) => `{${name},id}`,
  (name) => `~${name}`,
];

/** One command: a first word, then up to five words of one to three fragments. */
export function generateCommand(random: (n: number) => number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random(list.length))];
  // Most fragments are plain, so that a good share of commands is accepted and run.
  const fragment = (): string => (random(10) < 3 ? pick(FRAGMENTS) : pick(PLAIN));
  let command = pick(FIRST_WORD_FORMS)(pick(STUB_NAMES));
  if (random(6) < 1) command += pick(FRAGMENTS.filter((f) => !f.includes('/')));
  const words = Math.floor(random(6));
  for (let w = 0; w < words; w++) {
    // Words after the first are sometimes glued to the one before; the first word never takes a
    // piece holding "/", which would make it a path instead of a name bash looks up in PATH.
    command += w > 0 && random(8) < 1 ? '' : pick(SEPARATORS);
    const pieces = 1 + Math.floor(random(3));
    for (let p = 0; p < pieces; p++) command += fragment();
  }
  if (random(6) < 1) command = pick(['', ' ', '\t']) + command + pick(['', ' ', '\t', '\n']);
  return command;
}

/** What bash ran for one command: each program found through PATH, with its arguments. */
export interface Ran {
  name: string;
  args: string[];
}

/**
 * The stubs: one script that appends its name and arguments (NUL-separated, the count first) to the
 * worker's log, linked under every name a command may start with. No other program is reachable:
 * bash runs with an empty environment but PATH, which names only the stub directory.
 */
const STUB = (log: string): string => `#!/bin/sh\nprintf '%s\\0' "$#" "\${0##*/}" "$@" >> '${log}'\n`;
/** Runs each NUL-terminated command of stdin, then marks its end in the log. */
const DRIVER = `
stubs=$1 log=$2
while IFS= read -r -d '' cmd; do
  /usr/bin/env -i PATH="$stubs" /bin/bash --norc --noprofile -c "$cmd" </dev/null >/dev/null 2>&1
  printf 'END\\0' >> "$log"
done
`;

/**
 * Has bash run `commands` (one bash -c each, in `workers` driver processes, in an empty working
 * directory so a pathname pattern matches nothing) and answers, for each, what ran. `firstWords` are
 * the names a stub is linked under (a name holding "/" or NUL cannot be one).
 */
export async function runInBash(
  commands: readonly string[],
  firstWords: Iterable<string>,
  workers = 2,
): Promise<Ran[][]> {
  const root = mkdtempSync(join(tmpdir(), 'sr-bash-differential-'));
  try {
    const cwd = join(root, 'cwd');
    mkdirSync(cwd);
    const names = new Set(
      [...STUB_NAMES, ...firstWords].filter((n) => n !== '' && n !== '.' && n !== '..' && !/[/\0]/.test(n)),
    );
    const chunks = Array.from({ length: workers }, (_, w) => commands.filter((_c, i) => i % workers === w));
    const results = await Promise.all(
      chunks.map(async (chunk, w) => {
        const stubs = join(root, `stubs-${w}`);
        const log = join(root, `log-${w}`);
        mkdirSync(stubs);
        writeFileSync(join(root, `stub-${w}`), STUB(log), { mode: 0o755 });
        writeFileSync(log, '');
        for (const name of names) symlinkSync(join(root, `stub-${w}`), join(stubs, name));
        await runDriver(chunk, stubs, log, cwd);
        return parseLog(readFileSync(log, 'utf8'), chunk.length);
      }),
    );
    return commands.map((_c, i) => results[i % workers][Math.floor(i / workers)]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

function runDriver(commands: readonly string[], stubs: string, log: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/bash', ['--norc', '--noprofile', '-c', DRIVER, 'driver', stubs, log], {
      cwd,
      env: {},
      stdio: ['pipe', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the bash driver exited with ${code}`))));
    child.stdin.end(commands.map((c) => `${c}\0`).join(''));
  });
}

function parseLog(text: string, expected: number): Ran[][] {
  const fields = text.split('\0');
  const runs: Ran[][] = [];
  let current: Ran[] = [];
  for (let i = 0; i < fields.length - 1;) {
    if (fields[i] === 'END') {
      runs.push(current);
      current = [];
      i += 1;
      continue;
    }
    const count = Number(fields[i]);
    current.push({ name: fields[i + 1], args: fields.slice(i + 2, i + 2 + count) });
    i += 2 + count;
  }
  if (runs.length !== expected) throw new Error(`the log holds ${runs.length} commands, not ${expected}`);
  return runs;
}

/** Whether bash ran exactly one program, named by the first word, with the other words as arguments. */
export function agrees(words: readonly string[], ran: readonly Ran[]): boolean {
  return (
    ran.length === 1 &&
    ran[0].name === words[0] &&
    ran[0].args.length === words.length - 1 &&
    ran[0].args.every((arg, i) => arg === words[i + 1])
  );
}
