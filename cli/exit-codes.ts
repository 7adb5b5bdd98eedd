// The exit codes scripts can rely on (the README lists them). withConfig turns an error into its code.

export const EXIT = {
  ok: 0,
  /** Something failed: a side refused, a sync failed, an unexpected error. */
  failed: 1,
  /** The command line or the configuration is wrong (nothing was done). */
  usage: 2,
  /** The connection (or record) named does not exist. */
  notFound: 3,
  /** The command ran and found something needing attention (doctor's problems, mapping problems). */
  attention: 4,
  /** Temporal or PostgreSQL could not be reached. */
  unreachable: 5,
} as const;

/** An error whose exit code is not 1. */
export class ExitError extends Error {
  override name = 'ExitError';
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

export class NotFoundError extends ExitError {
  constructor(message: string) {
    super(message, EXIT.notFound);
  }
}

export class UnreachableError extends ExitError {
  constructor(message: string) {
    super(message, EXIT.unreachable);
  }
}

/** The command line (or what it points at) is wrong; nothing was done. */
export class UsageError extends ExitError {
  constructor(message: string) {
    super(message, EXIT.usage);
  }
}
