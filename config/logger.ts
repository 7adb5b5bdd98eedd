// pino: JSON lines by default (for log shippers), readable colours on a terminal.
// Secret-bearing fields are redacted wherever they appear, so a careless log call cannot leak them.
import pino, { type Logger } from 'pino';
import type { AppConfig } from './config.ts';

export type { Logger };

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

export function createLogger(log: AppConfig['log'], destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: 'crm-sync',
    level: log.level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
    // The Temporal SDK hands its "Activity failed" / "Workflow failed" lines an Error under `error`:
    // without a serializer only its enumerable fields (type, nonRetryable) reached the log, not why.
    serializers: { error: errorForLog, err: errorForLog },
  };
  if (destination) return pino(options, destination);
  if (log.format === 'pretty') {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, destination: 2 } } });
  }
  return pino(options, pino.destination(2));
}
