// The databases a test's own Temporal server made on the shared test PostgreSQL, dropped when it ends
// (each test names them with a suffix of its own, so runs never share one).
import pg from 'pg';

export async function dropTemporalDatabases(serverUrl: string, names: string[]): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    for (const name of names) await admin.query(`DROP DATABASE IF EXISTS ${pg.escapeIdentifier(name)} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
