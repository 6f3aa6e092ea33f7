import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import { maskPersonalData, maskPersonalText } from '../domain/masking';

/**
 * The service's logger (docs/security.md "Personal data in logs"): pino, with every line's fields
 * passed through `maskPersonalData` (account numbers, IBANs, phone numbers and e-mail addresses
 * masked by field name and by shape, at any depth, errors included) and its message through
 * `maskPersonalText`. Every process builds its logger here (src/main/runtime.ts); a module that
 * logs uses `core.log`.
 */
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
