// Reads PostgreSQL error codes off driver errors (TypeORM wraps them in QueryFailedError).
interface PgErrorLike {
  code?: string;
  constraint?: string;
  driverError?: PgErrorLike;
}

function pgError(err: unknown): PgErrorLike | undefined {
  const e = err as PgErrorLike | undefined;
  return e?.driverError ?? e;
}

/** A unique violation, of `constraint` when given. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = pgError(err);
  return e?.code === '23505' && (constraint === undefined || e.constraint === constraint);
}

/** The unique constraint a write violated, or null for any other error. */
export function violatedUnique(err: unknown): string | null {
  const e = pgError(err);
  return e?.code === '23505' ? (e.constraint ?? '') : null;
}
