/**
 * The one logger of every agentry process: JSON lines (pino) for machines, or readable lines for people at a
 * terminal (`LOG_FORMAT=pretty`). Keys, tokens, passwords, Authorization and Cookie headers are redacted wherever they
 * appear in what is logged.
 */
import { pino, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export type LogFormat = 'json' | 'pretty';

export interface LogOptions {
  format: LogFormat;
  /** pino level: trace, debug, info, warn, error, fatal or silent. */
  level: string;
  /** Where lines go (stdout by default); tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream;
}

/** Paths of logged objects whose values are secrets (API keys, webhook tokens, Authorization and Cookie headers, passwords). */
export const REDACTED_PATHS = [
  'authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.authorization',
  'key',
  '*.key',
  'apiKey',
  '*.apiKey',
  'accessToken',
  '*.accessToken',
  'userKey',
  'generalKey',
  '*.userKey',
  '*.generalKey',
  'headers.cookie',
  'req.headers.cookie',
  'password',
  '*.password',
  'csrfToken',
  '*.csrfToken',
];

/** A logger named after its process (`api`, `worker`, `launcher`). */
export function createLogger(name: string, { format, level, destination }: LogOptions): Logger {
  const options = { name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } };
  if (format === 'pretty') {
    return pino(
      options,
      pretty({ sync: true, colorize: !destination && process.stdout.isTTY, destination: (destination ?? process.stdout) as never }),
    );
  }
  return destination ? pino(options, destination as never) : pino(options);
}
