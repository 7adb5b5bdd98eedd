// The admin server's certificate and key, read from the files CRM_SYNC_ADMIN_TLS_CERT and
// CRM_SYNC_ADMIN_TLS_KEY name, and checked as a pair at start: a missing file or a key that does not fit
// the certificate stops the worker with a message naming the setting, not a TLS error on the first visit.
import { readFileSync } from 'node:fs';
import { createSecureContext } from 'node:tls';
import { ConfigError } from '../config/config.ts';

/** A configuration error: the command line reports it in one line and exits 2, like a bad variable. */
export class AdminTlsError extends ConfigError {
  override name = 'AdminTlsError';
}

export function readAdminTls(files: { certFile: string; keyFile: string }): { cert: Buffer; key: Buffer } {
  const read = (file: string, variable: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (error) {
      throw new AdminTlsError(`${variable}: cannot read the admin server's ${what} from ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    }
  };
  const cert = read(files.certFile, 'CRM_SYNC_ADMIN_TLS_CERT', 'certificate');
  const key = read(files.keyFile, 'CRM_SYNC_ADMIN_TLS_KEY', 'private key');
  try {
    createSecureContext({ cert, key });
  } catch (error) {
    // OpenSSL's reason (e.g. "key values mismatch", "no start line") never quotes the key itself.
    throw new AdminTlsError(
      `CRM_SYNC_ADMIN_TLS_CERT / CRM_SYNC_ADMIN_TLS_KEY: ${files.certFile} and ${files.keyFile} are not a PEM certificate and its private key (${(error as Error).message})`,
    );
  }
  return { cert, key };
}
