/** Structured logging shared by the server, the worker and the CLI. */
import { pino, type Logger as Pino } from 'pino';
import type { Logger } from '../../core/contract/index.js';
import type { Config } from './config.js';

/**
 * Download tokens and e-mail verification links (`/verify?token=`) are credentials: never let one
 * reach a log line. Nor a GraphQL operation sent over GET, whose arguments may hold a password.
 */
export function redactUrl(url: string): string {
  return url
    .replace(/(\/api\/download\/)[^/?#]+/, '$1[token]')
    .replace(/([?&]token=)[^&#]*/gi, '$1[token]')
    .replace(/^(\/graphql\/?)\?.*$/, '$1?[operation]');
}

export function createPino(config: Pick<Config, 'logLevel'>): Pino {
  return pino({
    level: config.logLevel,
    redact: [
      'req.headers.authorization',
      'headers.authorization',
      'req.headers.cookie',
      'headers.cookie',
      'req.headers["x-csrf-token"]',
      'headers["x-csrf-token"]',
    ],
    serializers: {
      req: (req: { method: string; url: string; id: string }) => ({
        method: req.method,
        url: redactUrl(req.url),
        id: req.id,
      }),
    },
  });
}

/** Adapts pino to the plugin Logger interface. */
export function toLogger(log: Pino): Logger {
  return {
    debug: (msg, data) => log.debug(data ?? {}, msg),
    info: (msg, data) => log.info(data ?? {}, msg),
    warn: (msg, data) => log.warn(data ?? {}, msg),
    error: (msg, data) => log.error(data ?? {}, msg),
  };
}
