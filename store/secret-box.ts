// Connection secrets at rest: AES-256-GCM with a random 96-bit IV per message and the owning row's id
// as additional authenticated data, so a ciphertext copied onto another connection fails to open.
// Layout: version (1 byte) | iv (12) | auth tag (16) | ciphertext.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export class SecretBox {
  readonly keyId: string;
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new SecretBoxError(`The secret key must be 32 bytes; got ${key.length}`);
    this.#key = Buffer.from(key);
    // Identifies the key without revealing it, so a wrong key gives a clear message instead of a tag error.
    this.keyId = createHash('sha256').update(key).digest('hex').slice(0, 16);
  }

  seal(plaintext: unknown, associatedData: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const body = Buffer.concat([cipher.update(JSON.stringify(plaintext), 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), body]);
  }

  open<T = unknown>(sealed: Buffer, associatedData: string, sealedWithKeyId?: string): T {
    if (sealedWithKeyId && sealedWithKeyId !== this.keyId) {
      throw new SecretBoxError(
        `These secrets were encrypted with key ${sealedWithKeyId}, but the configured key is ${this.keyId}: ` +
          'set CRM_SYNC_SECRET_KEY to the key used when the connection was saved',
      );
    }
    if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== VERSION) {
      throw new SecretBoxError('The stored secrets are not in a format this version understands');
    }
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', this.#key, iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(tag);
    try {
      const plain = Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as T;
    } catch {
      throw new SecretBoxError('The stored secrets could not be decrypted: wrong key, or the data was altered');
    }
  }

  // Keep the key out of console.log, util.inspect and JSON.
  toJSON() {
    return { keyId: this.keyId };
  }
  [Symbol.for('nodejs.util.inspect.custom')]() {
    return `SecretBox(${this.keyId})`;
  }
}

/** The embedded default: a key generated once into the data directory, readable by its owner only. */
export function loadOrCreateKeyFile(dataDir: string): Buffer {
  const file = path.join(dataDir, 'secret.key');
  if (existsSync(file)) {
    const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new SecretBoxError(`${file} does not hold a 32-byte base64 key`);
    return key;
  }
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return key;
}

/** The configured key (CRM_SYNC_SECRET_KEY), or the embedded default's key file. */
export function resolveSecretBox(config: { secretKey?: Buffer; dataDir: string }): SecretBox {
  return new SecretBox(config.secretKey ?? loadOrCreateKeyFile(config.dataDir));
}
