// pino: JSON lines by default (for log shippers), one readable line per record on a terminal.
// Secret-bearing fields are redacted wherever they appear, so a careless log call cannot leak them:
// redaction happens in pino before either format sees the record.
import pino, { type Logger } from 'pino';
import { prettyFactory } from 'pino-pretty';
import type { AppConfig } from './config.ts';

export type { Logger };

/** 'auto': readable lines when the log destination is a terminal, JSON otherwise. */
export type LogFormat = 'json' | 'pretty' | 'auto';

/** What a logger writes: a format that was asked for, or for 'auto' what suits the destination. */
export function chooseLogFormat(format: LogFormat, destinationIsTerminal: boolean): 'json' | 'pretty' {
  if (format !== 'auto') return format;
  return destinationIsTerminal ? 'pretty' : 'json';
}

export const redactedPaths = [
  'password',
  'secret',
  'clientSecret',
  'client_secret',
  'accessToken',
  'access_token',
  'refreshToken',
  'refresh_token',
  'apiKey',
  'secretKey',
  'authorization',
  'databaseUrl',
  '*.password',
  '*.secret',
  '*.secrets',
  '*.clientSecret',
  '*.client_secret',
  '*.accessToken',
  '*.access_token',
  '*.refreshToken',
  '*.refresh_token',
  '*.apiKey',
  '*.secretKey',
  '*.authorization',
  '*.databaseUrl',
  'headers.authorization',
  '*.headers.authorization',
];

/** pino's error serializer (message with causes, stack), keeping an ApplicationFailure's own `type`
 * (CredentialsRefused, ...) where pino would put the class name: that is what a person searches for. */
function errorForLog(value: unknown): unknown {
  if (!(value instanceof Error)) return value;
  const serialized = pino.stdSerializers.err(value);
  const failureType = (value as { type?: unknown }).type;
  return typeof failureType === 'string' ? { ...serialized, type: failureType, errorClass: serialized.type } : serialized;
}

export type LogSettings = { level: AppConfig['log']['level']; format: LogFormat };

/** Logs go to stderr unless a destination is given (tests); stdout is kept for command output. */
export function createLogger(log: LogSettings, destination?: pino.DestinationStream & { isTTY?: boolean }): Logger {
  const options: pino.LoggerOptions = {
    name: 'crm-sync',
    level: log.level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    // The Temporal SDK hands its "Activity failed" / "Workflow failed" lines an Error under `error`:
    // without a serializer only its enumerable fields (type, nonRetryable) reached the log, not why.
    serializers: { error: errorForLog, err: errorForLog },
  };
  const target = destination ?? pino.destination({ dest: 2, sync: true });
  const isTerminal = Boolean(destination ? destination.isTTY : process.stderr.isTTY);
  if (chooseLogFormat(log.format, isTerminal) === 'json') return pino(options, target);
  return pino(options, prettyLines(target, isTerminal && !process.env.NO_COLOR));
}

// In-process and synchronous (pino-pretty's prettyFactory, not its worker-thread transport): each
// line is written before the log call returns, so the last lines before an exit are not lost.
function prettyLines(target: pino.DestinationStream, colorize: boolean): pino.DestinationStream {
  const prettify = prettyFactory({
    colorize,
    translateTime: 'SYS:HH:MM:ss',
    singleLine: true,
    // The connection a line is about (workflow and activity lines carry connectionId, see
    // activities/log-attributes.ts) leads the message; the process fields say nothing on a terminal.
    messageFormat: '{if connectionId}{connectionId}: {end}{msg}',
    ignore: 'pid,hostname,name,connectionId',
  });
  return { write: (line: string) => target.write(prettify(line)) };
}
