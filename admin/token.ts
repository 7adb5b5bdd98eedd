// The admin server's access token: CRM_SYNC_ADMIN_TOKEN when set, else one generated once into the data
// directory (readable by its owner only), so a restart keeps it and the person who started the worker
// can read it. Compared in constant time.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export type AdminToken = { value: string; source: 'environment' | 'file'; file?: string };

export function resolveAdminToken(options: { fromEnvironment?: string; dataDir: string }): AdminToken {
  if (options.fromEnvironment) return { value: options.fromEnvironment, source: 'environment' };
  const file = path.join(options.dataDir, 'admin-token');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved) return { value: saved, source: 'file', file };
  }
  const value = randomBytes(24).toString('base64url');
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return { value, source: 'file', file };
}

/** Whether `offered` is the token, without telling how much of it matched by the time it takes. */
export function tokenMatches(token: string, offered: string | undefined): boolean {
  if (!offered) return false;
  const expected = Buffer.from(token);
  const given = Buffer.from(offered);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
