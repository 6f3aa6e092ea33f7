/**
 * Writes what a provider double exchanged to a folder (docs/notifications.md "Test doubles"):
 * `<dir>/<provider>/<seq>-<kind>.json` with method, URL, headers and body of each request the
 * double received and each callback it made, and `.eml` files for e-mail.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

let seq = 0;

/** One exchange as written to disk. */
export interface Exchange {
  kind: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  status?: number;
  response?: string;
}

/** Records exchanges of `provider` under `dir` (nothing when `dir` is undefined). Returns the file written. */
export function recorder(dir: string | undefined, provider: string) {
  const sub = dir ? join(dir, provider) : undefined;
  if (sub) mkdirSync(sub, { recursive: true });
  return (x: Exchange): string | undefined => {
    if (!sub) return undefined;
    const file = join(sub, `${String(++seq).padStart(4, '0')}-${x.kind}.json`);
    writeFileSync(file, `${JSON.stringify(x, null, 2)}\n`);
    return file;
  };
}

/** Headers of a node request or fetch Headers as a plain object. */
export function headersOf(h: Headers | Record<string, string | string[] | undefined>): Record<string, string> {
  if (h instanceof Headers) return Object.fromEntries(h.entries());
  return Object.fromEntries(Object.entries(h).filter(([, v]) => v !== undefined).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
}
