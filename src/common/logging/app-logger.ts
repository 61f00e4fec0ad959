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

export class AppLogger implements LoggerService {
  private readonly max: number;

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
      this.sink(JSON.stringify(entry));
      return;
    }
    const { time, level: lvl, msg: text, ...rest } = entry;
    const extra = Object.keys(rest).length ? ' ' + JSON.stringify(rest) : '';
    this.sink(`${String(time)} ${String(lvl).toUpperCase().padEnd(5)} ${String(text)}${extra}`);
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

/** Replaces the password of a connection string, so it can be logged. */
export function maskDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '****';
    return parsed.toString();
  } catch {
    return '<unparseable DATABASE_URL>';
  }
}
