import { z } from 'zod';
import { parseDuration } from '../domain/durations';

/** A positive ISO 8601 duration (e.g. `example`) or milliseconds, as a string variable. */
export const isoDuration = (example: string) =>
  z.string().refine((v) => {
    try {
      return parseDuration(v) > 0;
    } catch {
      return false;
    }
  }, `a positive ISO 8601 duration such as ${example}, or milliseconds`);
