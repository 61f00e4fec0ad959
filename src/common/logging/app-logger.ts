// The one logger: JSON lines (text lines when NODE_ENV=development), with the request id.
import { LoggerService } from '@nestjs/common';
import { requestContext } from './request-context';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type LogFormat = 'json' | 'text';

const RANK: Record<LogLevel, number> = { fatal: 0, error: 1, warn: 2, info: 3, debug: 4 };

/** Nest's start-up chatter: one line per module and route, kept for LOG_LEVEL=debug. */
const NOISY_CONTEXTS = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

export type LogSink = (line: string) => void;

const stdoutSink: LogSink = (line) => {
  process.stdout.write(line + '\n');
};

/** What a secret is replaced with. */
export const MASK = '****';
/** Shorter secrets are masked where they are logged (maskDatabaseUrl), not searched for in every line. */
const MIN_SCRUBBED_LENGTH = 4;
/** `scheme://user:` at the start of a URL: what follows, up to the last `@` of the authority, is the password. */
const USERINFO = /^[a-z][a-z0-9+.-]*:\/\/[^:@/?#]*:/i;
/** Query parameters that carry a secret (`password`, `sslpassword`, any case). */
const SECRET_PARAM = /([?&;][^=&#;]*(?:pass|secret|token)[^=&#;]*=)([^&#;]*)/gi;

export class AppLogger implements LoggerService {
  private readonly max: number;
  /** Every form in which a configured secret could appear in a line, longest first. */
  private secrets: string[] = [];

  constructor(
    level: LogLevel = 'info',
    private readonly format: LogFormat = 'json',
    private readonly sink: LogSink = stdoutSink,
  ) {
    this.max = RANK[level];
  }

  enabled(level: LogLevel): boolean {
    return RANK[level] <= this.max;
  }

  /**
   * Secrets of the configuration (passwords, keys): no line is written with one in it, whatever
   * carried it there (an error message, a URL, a stack).
   */
  maskSecrets(secrets: readonly string[]): void {
    const forms = secrets
      .filter((s) => s.length >= MIN_SCRUBBED_LENGTH)
      .flatMap((s) => [s, JSON.stringify(s).slice(1, -1), encodeURIComponent(s)]);
    this.secrets = [...new Set([...this.secrets, ...forms])].sort((a, b) => b.length - a.length);
  }

  /** A structured line: `fields` are merged into the JSON object. */
  write(level: LogLevel, msg: string, fields: Record<string, unknown> = {}): void {
    if (!this.enabled(level)) return;
    const ctx = requestContext.getStore();
    const entry: Record<string, unknown> = { level, time: new Date().toISOString(), msg };
    if (ctx) {
      entry.request_id = ctx.requestId;
      if (ctx.userId !== undefined) entry.user_id = ctx.userId;
    }
    Object.assign(entry, fields);
    if (this.format === 'json') {
      this.sink(this.scrub(JSON.stringify(entry)));
      return;
    }
    const { time, level: lvl, msg: text, ...rest } = entry;
    const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
    this.sink(this.scrub(`${String(time)} ${String(lvl).toUpperCase().padEnd(5)} ${String(text)}${extra}`));
  }

  private scrub(line: string): string {
    for (const secret of this.secrets) {
      if (line.includes(secret)) line = line.split(secret).join(MASK);
    }
    return line;
  }

  log(message: unknown, context?: string): void {
    this.nest(context && NOISY_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, stackOrContext?: string, context?: string): void {
    const ctx = context ?? (stackOrContext && !stackOrContext.includes('\n') ? stackOrContext : undefined);
    const stack = stackOrContext && stackOrContext.includes('\n') ? stackOrContext : undefined;
    this.nest('error', message, ctx, stack);
  }
  warn(message: unknown, context?: string): void {
    this.nest('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.nest('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.nest('debug', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.nest('fatal', message, context);
  }

  private nest(level: LogLevel, message: unknown, context?: string, stack?: string): void {
    const fields: Record<string, unknown> = {};
    if (context) fields.context = context;
    if (stack) fields.stack = stack;
    if (message instanceof Error) {
      fields.stack = message.stack;
      this.write(level, message.message, fields);
      return;
    }
    this.write(level, typeof message === 'string' ? message : JSON.stringify(message), fields);
  }
}

/** Where the password of a `scheme://user:password@host` URL lies, or null. */
function userinfoPassword(url: string): { start: number; end: number } | null {
  const prefix = USERINFO.exec(url);
  if (!prefix) return null;
  const start = prefix[0].length;
  // The authority ends at the first '/', '?' or '#' after its last '@'; a password holding one of
  // them unencoded is still masked whole, up to the last '@' before the query.
  const query = url.slice(start).search(/[?#]/);
  const head = query < 0 ? url : url.slice(0, start + query);
  const end = head.lastIndexOf('@');
  return end >= start ? { start, end } : null;
}

/** Replaces every password of a connection string (userinfo and query parameters), so it can be logged. */
export function maskDatabaseUrl(url: string): string {
  const span = userinfoPassword(url);
  const masked = span ? `${url.slice(0, span.start)}${MASK}${url.slice(span.end)}` : url;
  return masked.replace(SECRET_PARAM, `$1${MASK}`);
}

function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The secrets a connection string holds, as written and decoded: what the logger must never print. */
export function databaseUrlSecrets(url: string): string[] {
  const found: string[] = [];
  const span = userinfoPassword(url);
  if (span) found.push(url.slice(span.start, span.end));
  for (const match of url.matchAll(SECRET_PARAM)) found.push(match[2]);
  return found.filter((s) => s.length > 0).flatMap((s) => [s, decoded(s)]);
}
