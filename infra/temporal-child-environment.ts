// What the Temporal server and its SQL tool are given when we start them: only the variables they need,
// not ours. Our environment holds CRM_SYNC_SECRET_KEY, the admin token and DATABASE_URL; a child that
// inherited them could log them or show them to anyone who reads its /proc/<pid>/environ.

/**
 * Passed through when set: the search path and home (Go's os.UserHomeDir), time zone and locale, the
 * temporary directory, and where Go finds CA certificates (SSL_CERT_FILE/SSL_CERT_DIR), which a
 * certificate check of PostgreSQL (sslmode verify-ca/verify-full) relies on.
 */
export const PASSED_THROUGH = ['PATH', 'HOME', 'TZ', 'LANG', 'LC_ALL', 'TMPDIR', 'SSL_CERT_FILE', 'SSL_CERT_DIR'] as const;

export function childEnvironment(own: Record<string, string>, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const passed: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = env[name];
    if (value !== undefined) passed[name] = value;
  }
  return { ...passed, ...own };
}

/** A child's output line with the password masked, before it reaches a log or an error. */
export function redacted(line: string, password: string): string {
  return password ? line.replaceAll(password, '***') : line;
}
