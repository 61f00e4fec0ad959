#!/usr/bin/env node
// The `skill-resolver` command (docs/sandbox-client.md#commands): `sync`, `verify` and `publish`, progress on stderr, `--json`
// on stdout, the exit codes of errors.ts. Run as `npx skill-resolver` or `node dist/src/client/cli.js`.
import { parseArgs } from 'node:util';
import { ClientError, EXIT_FAILED, EXIT_INTEGRITY, EXIT_USAGE, errorMessage, UsageError } from './errors';
import { DEFAULT_SLOW_DOWNLOAD, MAX_TIMEOUT_MS, SlowDownloadRule } from './deadline';
import { ClientPackageLimits, DEFAULT_PACKAGE_LIMITS, defaultCacheDir, LIMIT_VARIABLES } from './limits';
import { printLines } from './printable';
import { CONNECTION_LOST } from './retry';
import type { RetryNotice } from './service-client';
import type * as Publish from './publish';
import type { PublishResult } from './publish';
import { ProgressEvent, sync, SyncResult } from './sync';
import { verify, VerifyResult } from './verify';

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The command's only way to print: whole lines, each made printable (printable.ts). */
interface Printer {
  err: (...lines: string[]) => void;
  out: (...lines: string[]) => void;
}

function printerOf(io: Io): Printer {
  return {
    err: (...lines) => printLines(io.stderr, lines),
    out: (...lines) => printLines(io.stdout, lines),
  };
}

const USAGE = `Usage:
  skill-resolver sync --task ID --dir DIR [--preload-only] [--cache DIR | --no-cache] [--strict] [--json]
                      [--verify] [--timeout S] [--cache-max-entries N] [--cache-max-bytes N[KiB|MiB|GiB]]
                      [--quiet] [--url URL] [--token TOKEN]
  skill-resolver verify --dir DIR [--json]
  skill-resolver publish DIR [--namespace NS] [--public] [--dry-run] [--json] [--timeout S] [--url URL]
                         [--token API_KEY]

Configuration: SKILL_RESOLVER_URL and SKILL_RESOLVER_TOKEN (a task token or an API key), or --url and
--token; SKILL_RESOLVER_CACHE_DIR or --cache (default: $XDG_CACHE_HOME/skill-resolver, else
~/.cache/skill-resolver).

A sync ends within --timeout seconds (default 300), and cuts any answer slower than
SKILL_RESOLVER_SLOW_RATE bytes/s (default 1KiB) over SKILL_RESOLVER_SLOW_WINDOW seconds (default
30); either way it exits 1 and leaves what it had not done as it was. A skill folder that differs
from the lock (a file missing, added, resized or of another mode; with --verify, of another sha256)
is rebuilt.

publish checks DIR with the service's own package rules, then uploads it as a new skill, or as a
version of the skill of that name in that scope (the same files make no new version); --dry-run
checks and lists the files, and sends nothing. It needs an API key, not a task token.

Exit codes: 0 done, 1 error (HTTP, network, file system), 2 usage, 3 unresolved names with --strict,
4 integrity (a package or a file that does not match its hash or breaks the package rules).
`;

const MIB = 1024 * 1024;
const UNITS: Record<string, number> = { '': 1, k: 1024, kib: 1024, m: MIB, mib: MIB, g: 1024 * MIB, gib: 1024 * MIB };

function wholeNumber(flag: string, raw: string | undefined, units = false): number | undefined {
  if (raw === undefined) return undefined;
  const match = /^(\d{1,15})\s*([a-z]*)$/i.exec(raw.trim());
  const unit = match ? UNITS[match[2].toLowerCase()] : undefined;
  if (!match || unit === undefined || (!units && unit !== 1)) {
    throw new UsageError(`${flag} must be a whole number${units ? ' of bytes (KiB, MiB and GiB allowed)' : ''}`);
  }
  return Number(match[1]) * unit;
}

/** The package limits, raised or lowered by the service's own variables when the deployment changed them. */
function limitsFrom(env: NodeJS.ProcessEnv): ClientPackageLimits {
  const limits = { ...DEFAULT_PACKAGE_LIMITS };
  for (const [key, variable] of Object.entries(LIMIT_VARIABLES) as Array<[keyof ClientPackageLimits, string]>) {
    const raw = env[variable]?.trim();
    if (!raw) continue;
    const value = wholeNumber(variable, raw);
    if (!value) throw new UsageError(`${variable} must be a positive whole number`);
    limits[key] = value;
  }
  return limits;
}

/** A positive number of seconds (decimals allowed), as milliseconds. */
function seconds(flag: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const value = /^\d{1,10}(\.\d{1,3})?$/.test(raw.trim()) ? Number(raw.trim()) * 1000 : NaN;
  if (!(value > 0 && value <= MAX_TIMEOUT_MS)) throw new UsageError(`${flag} must be a positive number of seconds`);
  return Math.round(value);
}

/** The slow-download cut, changed by SKILL_RESOLVER_SLOW_WINDOW (seconds) and SKILL_RESOLVER_SLOW_RATE (bytes/s). */
function slowDownloadFrom(env: NodeJS.ProcessEnv): SlowDownloadRule {
  const window = env.SKILL_RESOLVER_SLOW_WINDOW?.trim();
  const rate = env.SKILL_RESOLVER_SLOW_RATE?.trim();
  return {
    windowMs: window ? seconds('SKILL_RESOLVER_SLOW_WINDOW', window)! : DEFAULT_SLOW_DOWNLOAD.windowMs,
    bytesPerSecond: rate ? wholeNumber('SKILL_RESOLVER_SLOW_RATE', rate, true)! : DEFAULT_SLOW_DOWNLOAD.bytesPerSecond,
  };
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < MIB) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / MIB).toFixed(1)} MiB`;
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** One retry about to be made (docs/sandbox-client.md#retries). */
function retryLine(notice: RetryNotice & { what: string }): string {
  const said = notice.status === CONNECTION_LOST ? 'dropped the connection' : `answered ${notice.status}`;
  return (
    `skill-resolver: ${notice.what}: ${notice.by} ${said}${notice.detail}; ` +
    `trying again in ${(notice.waitMs / 1000).toFixed(1)} s (retry ${notice.attempt})`
  );
}

function progressPrinter(print: Printer, quiet: boolean, taskId: number): (event: ProgressEvent) => void {
  return (event) => {
    if (event.kind === 'warning') return print.err(`skill-resolver: warning: ${event.message}`);
    if (event.kind === 'failed') return print.err(`skill-resolver: ${event.name} failed: ${event.message}`);
    if (event.kind === 'repair') {
      return print.err(`skill-resolver: warning: ${event.name} differs from the lock (${event.detail}); rebuilding it`);
    }
    if (quiet) return;
    switch (event.kind) {
      case 'resolved':
        return print.err(
          event.notModified
            ? `skill-resolver: task ${taskId}: ${count(event.total, 'skill')}, unchanged since the last sync`
            : `skill-resolver: task ${taskId}: ${count(event.total, 'skill')}, ${event.toFetch} to fetch`,
        );
      case 'adopted':
        return print.err(
          `skill-resolver: ${event.name} was already in place, exactly as the service stores it; now in the lock`,
        );
      case 'skill':
        return print.err(
          `skill-resolver: [${event.done}/${event.total}] ${event.name} v${event.version} from ${event.from}` +
            (event.from === 'download' ? ` (${size(event.bytes)})` : ''),
        );
      case 'retry':
        return print.err(retryLine(event));
    }
  };
}

function syncSummary(result: SyncResult, dir: string): string[] {
  const lines = [
    `skill-resolver: ${count(result.skills.length, 'skill')} in ${dir}, ${result.failed.length} failed, ` +
      `${result.unresolved.length} unresolved; ${count(result.requests, 'request')}` +
      `${result.retries > 0 ? ` (${result.retries} retried)` : ''}, ${size(result.bytes_downloaded)} downloaded`,
  ];
  for (const u of result.unresolved) {
    lines.push(
      `skill-resolver: unresolved: ${u.name}${u.reason ? ` (${u.reason}${u.source ? ` from ${u.source}` : ''})` : ''}`,
    );
  }
  return lines;
}

async function runSync(args: string[], env: NodeJS.ProcessEnv, print: Printer, signal?: AbortSignal): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: {
      task: { type: 'string' },
      dir: { type: 'string' },
      'preload-only': { type: 'boolean' },
      cache: { type: 'string' },
      'no-cache': { type: 'boolean' },
      strict: { type: 'boolean' },
      json: { type: 'boolean' },
      verify: { type: 'boolean' },
      timeout: { type: 'string' },
      quiet: { type: 'boolean' },
      url: { type: 'string' },
      token: { type: 'string' },
      'cache-max-entries': { type: 'string' },
      'cache-max-bytes': { type: 'string' },
    },
  });
  if (values.task === undefined) throw new UsageError('sync needs --task ID');
  if (!values.dir) throw new UsageError('sync needs --dir DIR');
  if (values.cache !== undefined && values['no-cache'])
    throw new UsageError('--cache and --no-cache exclude each other');
  const taskId = wholeNumber('--task', values.task);
  const result = await sync({
    url: values.url ?? env.SKILL_RESOLVER_URL?.trim() ?? '',
    token: values.token ?? env.SKILL_RESOLVER_TOKEN?.trim() ?? '',
    taskId: taskId ?? 0,
    dir: values.dir,
    preloadOnly: values['preload-only'] === true,
    cacheDir: values['no-cache'] ? false : (values.cache ?? defaultCacheDir(env)),
    strict: values.strict === true,
    verify: values.verify === true,
    timeoutMs: seconds('--timeout', values.timeout),
    slowDownload: slowDownloadFrom(env),
    signal,
    cacheMaxEntries: wholeNumber('--cache-max-entries', values['cache-max-entries']),
    cacheMaxBytes: wholeNumber('--cache-max-bytes', values['cache-max-bytes'], true),
    limits: limitsFrom(env),
    onProgress: progressPrinter(print, values.quiet === true, taskId ?? 0),
  });
  if (!values.quiet || result.exitCode !== 0) print.err(...syncSummary(result, values.dir));
  if (values.json) {
    const { fingerprint, skills, unresolved, requests, retries, bytes_downloaded, failed } = result;
    print.out(JSON.stringify({ fingerprint, skills, unresolved, requests, retries, bytes_downloaded, failed }));
  }
  return result.exitCode;
}

async function runVerify(args: string[], print: Printer): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    allowPositionals: false,
    options: { dir: { type: 'string' }, json: { type: 'boolean' } },
  });
  if (!values.dir) throw new UsageError('verify needs --dir DIR');
  const result: VerifyResult = await verify({ dir: values.dir });
  for (const p of result.problems) {
    print.err(`skill-resolver: ${p.name}${p.path ? `/${p.path}` : ''}: ${p.problem}`);
  }
  print.err(
    `skill-resolver: ${count(result.skills, 'skill')}, ${count(result.files, 'file')} checked: ` +
      `${result.problems.length === 0 ? 'all match the lock' : count(result.problems.length, 'problem')}`,
  );
  if (values.json) print.out(JSON.stringify(result));
  return result.exitCode;
}

function problemLine(p: { code: string; message: string; field?: string }, warning = false): string {
  return `skill-resolver: ${warning ? 'warning: ' : ''}${p.code}: ${p.message}${p.field ? ` [${p.field}]` : ''}`;
}

function publishLines(result: PublishResult, dir: string, print: Printer, asJson: boolean): number {
  for (const w of result.warnings) print.err(problemLine(w, true));
  switch (result.kind) {
    case 'invalid':
      for (const p of result.problems) print.err(problemLine(p));
      print.err(
        `skill-resolver: ${dir} is not a valid skill package: ${count(result.problems.length, 'problem')}; nothing was sent`,
      );
      if (asJson) {
        print.out(
          JSON.stringify({ valid: false, name: result.name, errors: result.problems, warnings: result.warnings }),
        );
      }
      return EXIT_INTEGRITY;
    case 'checked':
      if (asJson) {
        print.out(
          JSON.stringify({
            dry_run: true,
            name: result.name,
            namespace: result.namespace,
            is_public: result.isPublic,
            content_hash: result.contentHash,
            revision: result.revision,
            size: result.size,
            files: result.files,
            warnings: result.warnings,
          }),
        );
      } else {
        for (const f of result.files) print.out(`${f.mode} ${String(f.size).padStart(9)} ${f.path}`);
      }
      print.err(
        `skill-resolver: ${result.name}: ${count(result.files.length, 'file')}, ${size(result.size)} packed, ` +
          `${result.contentHash}: valid; nothing sent (--dry-run)`,
      );
      return 0;
    case 'published': {
      const said = {
        created: 'a new skill',
        versioned: 'a new version',
        unchanged: 'unchanged: the latest version holds these files',
      }[result.outcome];
      print.err(
        `skill-resolver: ${result.name}: skill ${result.skillId} version ${result.version.version} (${said}); ` +
          `${count(result.requests, 'request')}${result.retries > 0 ? ` (${result.retries} retried)` : ''}`,
      );
      if (asJson) {
        print.out(
          JSON.stringify({
            skill_id: result.skillId,
            name: result.name,
            namespace: result.namespace,
            is_public: result.isPublic,
            outcome: result.outcome,
            ...result.version,
          }),
        );
      } else {
        print.out(`skill ${result.skillId} version ${result.version.version} ${result.version.content_hash}`);
      }
      return 0;
    }
  }
}

async function runPublish(
  args: string[],
  env: NodeJS.ProcessEnv,
  print: Printer,
  signal?: AbortSignal,
): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      namespace: { type: 'string' },
      public: { type: 'boolean' },
      'dry-run': { type: 'boolean' },
      json: { type: 'boolean' },
      timeout: { type: 'string' },
      url: { type: 'string' },
      token: { type: 'string' },
    },
  });
  if (positionals.length !== 1) throw new UsageError('publish needs one folder: publish DIR');
  const [dir] = positionals;
  // Loaded for this command only: the package rules (and their YAML parser) cost every sync's start.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded here on purpose
  const { publish } = require('./publish') as typeof Publish;
  const result = await publish({
    url: values.url ?? env.SKILL_RESOLVER_URL?.trim() ?? '',
    token: values.token ?? env.SKILL_RESOLVER_TOKEN?.trim() ?? '',
    dir,
    namespace: values.namespace,
    public: values.public === true,
    dryRun: values['dry-run'] === true,
    timeoutMs: seconds('--timeout', values.timeout),
    limits: limitsFrom(env),
    signal,
    onRetry: (notice) => print.err(retryLine(notice)),
  });
  return publishLines(result, dir, print, values.json === true);
}

/** Runs one command and answers its exit code; never throws. `signal` stops a sync as its deadline would. */
export async function main(argv: string[], env: NodeJS.ProcessEnv, io: Io, signal?: AbortSignal): Promise<number> {
  const [command, ...rest] = argv;
  const print = printerOf(io);
  const usage = USAGE.trimEnd().split('\n');
  try {
    switch (command) {
      case 'sync':
        return await runSync(rest, env, print, signal);
      case 'verify':
        return await runVerify(rest, print);
      case 'publish':
        return await runPublish(rest, env, print, signal);
      case 'help':
      case '--help':
      case '-h':
        print.out(...usage);
        return 0;
      default:
        throw new UsageError(command ? `Unknown command ${JSON.stringify(command)}` : 'No command given');
    }
  } catch (err) {
    if (err instanceof ClientError) {
      print.err(`skill-resolver: error: ${err.message}`);
      if (err.exitCode === EXIT_USAGE) print.err('', ...usage);
      return err.exitCode;
    }
    // parseArgs rejects unknown or malformed options with a TypeError carrying ERR_PARSE_ARGS_*.
    if ((err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      print.err(`skill-resolver: error: ${errorMessage(err)}`, '', ...usage);
      return EXIT_USAGE;
    }
    print.err(`skill-resolver: error: ${errorMessage(err)}`);
    return EXIT_FAILED;
  }
}

/**
 * The command on this process: its arguments, environment and streams; sets the exit code.
 * SIGTERM or SIGINT (an orchestrator stopping the sandbox, Ctrl-C) stops a sync the way its
 * deadline does: the previous copies stay, nothing is left behind, exit 1; a second one ends the
 * process at once.
 */
export function run(): void {
  const stop = new AbortController();
  for (const name of ['SIGTERM', 'SIGINT'] as const) {
    process.once(name, () => {
      stop.abort(new ClientError(EXIT_FAILED, `by ${name}`));
      process.once(name, () => process.exit(EXIT_FAILED));
    });
  }
  void main(
    process.argv.slice(2),
    process.env,
    {
      stdout: (text) => process.stdout.write(text),
      stderr: (text) => process.stderr.write(text),
    },
    stop.signal,
  ).then((code) => {
    process.exitCode = code;
  });
}

if (require.main === module) run();
