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

export function createLogger(log: AppConfig['log'], destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name: 'crm-sync',
    level: log.level,
    redact: { paths: redactedPaths, censor: '[redacted]' },
  };
  if (destination) return pino(options, destination);
  if (log.format === 'pretty') {
    return pino({ ...options, transport: { target: 'pino-pretty', options: { colorize: true, destination: 2 } } });
  }
  return pino(options, pino.destination(2));
}
