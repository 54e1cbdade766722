/** What a log line says of a PostgreSQL failure. */
export interface PostgresFailure {
  /** The SQLSTATE (`57P01`), a Node error code (`ECONNREFUSED`) or a TG_ code, when the error has one. */
  readonly code?: string;
  readonly message: string;
}

/**
 * A PostgreSQL failure as the log may carry it: its code and message, nothing else. pg's errors
 * carry more: pg-pool hangs the whole Client on an idle connection's error (`err.client`, with the
 * backend's cancel `secretKey` and `processID`, user, database and the text of prepared
 * statements), and a server error names the server's source file, line and routine. None of it
 * tells an operator more than the code and message do.
 */
export function postgresFailure(error: unknown): PostgresFailure {
  if (!(error instanceof Error)) return { message: String(error) };
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? { code, message: error.message } : { message: error.message };
}
