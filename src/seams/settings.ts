/**
 * Building blocks of module settings (docs/architecture.md "Seams"): the variable kinds more than
 * one module's zod shape uses. Pure; src/config.ts and every seam module import them from here, so
 * no module needs src/config.ts.
 */
import { z } from 'zod';
import { parseDuration } from '../domain/durations';

/** Whether `fn` returns without throwing (config refinements over domain parsers). */
export const ok = (fn: () => unknown): boolean => {
  try {
    fn();
    return true;
  } catch {
    return false;
  }
};

/** A positive ISO 8601 duration (e.g. `example`) or milliseconds, as a string variable. */
export const isoDuration = (example: string) =>
  z.string().refine((v) => {
    try {
      return parseDuration(v) > 0;
    } catch {
      return false;
    }
  }, `a positive ISO 8601 duration such as ${example}, or milliseconds`);
