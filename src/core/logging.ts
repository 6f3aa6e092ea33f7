import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { maskPersonalData, maskPersonalText } from '../domain/masking';

/** The service's logger (pino): every line's fields and message masked (docs/security.md "Personal data in logs"). */
export function createLogger(opts: LoggerOptions = {}, destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    ...opts,
    formatters: { ...opts.formatters, log: (obj) => maskPersonalData(obj) as Record<string, unknown> },
    hooks: {
      logMethod(args, method) {
        const masked = args.map((a) => (typeof a === 'string' ? maskPersonalText(a) : a)) as Parameters<typeof method>;
        return method.apply(this, masked);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
