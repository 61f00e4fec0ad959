// Exit codes of the sandbox client (docs/sandbox-client.md#exit-codes) and the errors that carry them.

export const EXIT_OK = 0;
/** HTTP errors (401, 404, ...), the network, a file system that refuses a write. */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
/** `--strict` and a name that did not resolve. */
export const EXIT_UNRESOLVED = 3;
/** A package or a materialised file that does not match its hash or breaks the package rules. */
export const EXIT_INTEGRITY = 4;

export type ExitCode =
  typeof EXIT_OK | typeof EXIT_FAILED | typeof EXIT_USAGE | typeof EXIT_UNRESOLVED | typeof EXIT_INTEGRITY;

/** An error that ends a command: its message is for a person and never holds the token. */
export class ClientError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
  ) {
    super(message);
    this.name = 'ClientError';
  }
}

export class UsageError extends ClientError {
  constructor(message: string) {
    super(EXIT_USAGE, message);
    this.name = 'UsageError';
  }
}

/** One skill failed its checks; the others go on, and the previous copy of this one stays. */
export class IntegrityError extends ClientError {
  constructor(message: string) {
    super(EXIT_INTEGRITY, message);
    this.name = 'IntegrityError';
  }
}

export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function errnoCode(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}
