// The admin server's access token: CRM_SYNC_ADMIN_TOKEN when set, else one generated once into the data
// directory (readable by its owner only), so a restart keeps it and the person who started the worker
// can read it. Compared in constant time. A token shorter than MIN_TOKEN_LENGTH, or of fewer than
// MIN_DISTINCT_CHARACTERS different characters, is refused at start (the message names the variable or
// file, never the token): the console may be reachable from a network, and such a token can be guessed.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/config.ts';

export type AdminToken = { value: string; source: 'environment' | 'file'; file?: string };

export const MIN_TOKEN_LENGTH = 32;
export const MIN_DISTINCT_CHARACTERS = 8;

/** A configuration error: the command line reports it in one line and exits 2, like a bad variable. */
export class AdminTokenTooShort extends ConfigError {
  override name = 'AdminTokenTooShort';
}

function longEnough(value: string, where: { variable: string } | { file: string }): string {
  const named = 'variable' in where ? where.variable : `the admin token in ${where.file}`;
  if (value.length < MIN_TOKEN_LENGTH) {
    const fix = 'variable' in where ? 'make one with: openssl rand -base64 32' : 'delete the file to have one generated, or write a longer one into it';
    throw new AdminTokenTooShort(`${named}: expected at least ${MIN_TOKEN_LENGTH} characters (${fix}); it has ${value.length}`);
  }
  // Length alone lets "aaaa…" or a word repeated through: such a token is guessed first.
  const distinct = new Set(value).size;
  if (distinct < MIN_DISTINCT_CHARACTERS) {
    const fix = 'variable' in where ? 'make one with: openssl rand -base64 32' : 'delete the file to have one generated, or write a better one into it';
    throw new AdminTokenTooShort(`${named}: expected at least ${MIN_DISTINCT_CHARACTERS} different characters (${fix}); it has ${distinct}`);
  }
  return value;
}

export function resolveAdminToken(options: { fromEnvironment?: string; dataDir: string }): AdminToken {
  if (options.fromEnvironment) return { value: longEnough(options.fromEnvironment, { variable: 'CRM_SYNC_ADMIN_TOKEN' }), source: 'environment' };
  const file = path.join(options.dataDir, 'admin-token');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved) return { value: longEnough(saved, { file }), source: 'file', file };
  }
  // 24 random bytes: 32 characters of base64url, the minimum length exactly.
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
