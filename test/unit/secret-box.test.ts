import { mkdtempSync, statSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadOrCreateKeyFile, SecretBox, SecretBoxError } from '../../store/secret-box.ts';

const key = Buffer.alloc(32, 1);
const secrets = { clientSecret: 's3cr3t-value', refreshToken: 'rt-123' };

describe('SecretBox', () => {
  it('round-trips secrets and never stores them in clear', () => {
    const box = new SecretBox(key);
    const sealed = box.seal(secrets, 'conn-1');
    expect(sealed.toString('latin1')).not.toContain('s3cr3t-value');
    expect(box.open(sealed, 'conn-1', box.keyId)).toEqual(secrets);
  });

  it('uses a fresh IV each time', () => {
    const box = new SecretBox(key);
    expect(box.seal(secrets, 'conn-1').equals(box.seal(secrets, 'conn-1'))).toBe(false);
  });

  it('refuses a ciphertext moved to another connection', () => {
    const box = new SecretBox(key);
    const sealed = box.seal(secrets, 'conn-1');
    expect(() => box.open(sealed, 'conn-2')).toThrow(SecretBoxError);
  });

  it('detects tampering', () => {
    const box = new SecretBox(key);
    const sealed = box.seal(secrets, 'conn-1');
    sealed[sealed.length - 1]! ^= 0xff;
    expect(() => box.open(sealed, 'conn-1')).toThrow(/could not be decrypted/);
  });

  it('names the key mismatch instead of failing obscurely', () => {
    const sealed = new SecretBox(key).seal(secrets, 'conn-1');
    const other = new SecretBox(Buffer.alloc(32, 2));
    expect(() => other.open(sealed, 'conn-1', new SecretBox(key).keyId)).toThrow(/set CRM_SYNC_SECRET_KEY/);
  });

  it('does not reveal its key when logged or serialised', () => {
    const box = new SecretBox(key);
    expect(inspect(box)).not.toContain(key.toString('base64'));
    expect(JSON.stringify(box)).toBe(JSON.stringify({ keyId: box.keyId }));
  });

  it('rejects keys of the wrong size', () => {
    expect(() => new SecretBox(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

describe('loadOrCreateKeyFile', () => {
  it('creates a 32-byte key readable by its owner only, and returns the same key afterwards', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'key-'));
    const first = loadOrCreateKeyFile(dir);
    const file = path.join(dir, 'secret.key');
    expect(first.length).toBe(32);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, 'utf8').trim(), 'base64').equals(first)).toBe(true);
    expect(loadOrCreateKeyFile(dir).equals(first)).toBe(true);
  });
});
