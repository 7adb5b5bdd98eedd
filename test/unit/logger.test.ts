import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../config/logger.ts';

function capture(isTTY = false) {
  const lines: string[] = [];
  const stream = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    }),
    { isTTY },
  );
  return { lines, stream };
}

const ESC = String.fromCharCode(27);
const withoutColours = (text: string) => text.replaceAll(new RegExp(`${ESC}\\[[0-9;]*m`, 'g'), '');

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

  it('pretty: one line per record, time, level, connection, message, then the other fields; secrets still redacted', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info', format: 'pretty' }, stream);
    logger.info({ connectionId: 'acme', runs: 3, clientSecret: 'cs-1', connection: { accessToken: 'at-1' } }, 'Sync run finished');
    logger.warn({ port: 54329 }, 'Embedded PostgreSQL is slow to start');
    const text = lines.join('');
    expect(text.split('\n')).toEqual([
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] INFO: acme: Sync run finished \{"runs":3,"clientSecret":"\[redacted\]","connection":\{"accessToken":"\[redacted\]"\}\}$/),
      expect.stringMatching(/^\[\d\d:\d\d:\d\d\] WARN: Embedded PostgreSQL is slow to start \{"port":54329\}$/),
      '',
    ]);
    for (const secret of ['cs-1', 'at-1']) expect(text).not.toContain(secret);
    expect(text).not.toContain(ESC); // no colour codes in what is not a terminal
  });

  it('pretty: an error shows its message and cause', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info', format: 'pretty' }, stream);
    logger.error({ err: new Error('Salesforce refused the client credentials', { cause: new Error('400 Bad Request') }) }, 'Run failed');
    const text = lines.join('');
    expect(text).toMatch(/^\[\d\d:\d\d:\d\d\] ERROR: Run failed/);
    expect(text).toContain('"message": "Salesforce refused the client credentials: 400 Bad Request"');
  });

  it('auto: readable lines on a terminal, JSON elsewhere', () => {
    const terminal = capture(true);
    createLogger({ level: 'info', format: 'auto' }, terminal.stream).info({ connectionId: 'acme' }, 'Schedules created');
    expect(withoutColours(terminal.lines.join(''))).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: acme: Schedules created\s*\n$/);

    const file = capture(false);
    createLogger({ level: 'info', format: 'auto' }, file.stream).info({ connectionId: 'acme' }, 'Schedules created');
    expect(JSON.parse(file.lines.join(''))).toMatchObject({ level: 30, connectionId: 'acme', msg: 'Schedules created' });
  });

  it('json when asked, even on a terminal', () => {
    const { lines, stream } = capture(true);
    createLogger({ level: 'info', format: 'json' }, stream).info('Schedules created');
    expect(JSON.parse(lines.join(''))).toMatchObject({ msg: 'Schedules created' });
  });
});
