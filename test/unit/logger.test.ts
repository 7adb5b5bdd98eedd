import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.ts';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, stream };
}

describe('logger', () => {
  it('writes JSON lines and redacts secret fields at any depth we use', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info', format: 'json' }, stream);
    logger.info(
      {
        clientSecret: 'cs-1',
        connection: { secrets: { token: 'tok-1' }, accessToken: 'at-1', refresh_token: 'rt-1', name: 'acme' },
        headers: { authorization: 'Bearer abc' },
        password: 'pw-1',
      },
      'connected',
    );
    const text = lines.join('');
    const entry = JSON.parse(text);
    expect(entry.msg).toBe('connected');
    expect(entry.connection.name).toBe('acme');
    for (const secret of ['cs-1', 'tok-1', 'at-1', 'rt-1', 'Bearer abc', 'pw-1']) expect(text).not.toContain(secret);
  });

  it('writes an error under `error` with its type, message and cause, as the Temporal SDK passes them', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info', format: 'json' }, stream);
    class ApplicationFailure extends Error {}
    const failure = Object.assign(new ApplicationFailure('Salesforce refused the client credentials: invalid_grant', { cause: new Error('400 Bad Request') }), { type: 'CredentialsRefused', nonRetryable: true });
    logger.warn({ error: failure }, 'Activity failed');
    const entry = JSON.parse(lines.join(''));
    expect(entry.error).toMatchObject({ type: 'CredentialsRefused', errorClass: 'ApplicationFailure', message: expect.stringContaining('Salesforce refused the client credentials: invalid_grant'), nonRetryable: true });
    expect(entry.error.message).toContain('400 Bad Request');
    expect(entry.error.stack).toContain('logger.test.ts');
  });
});
