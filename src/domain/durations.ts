/** Durations (spec: ISO 8601). Pure, so workflows may import it. */

const ISO_RE = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/;

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;

/**
 * Parses an ISO 8601 duration (weeks to fractional seconds: `PT0.05S`, `P30D`, `P2W`) or plain
 * milliseconds (`250`) into whole ms. Throws Error otherwise; years and months vary, so are refused.
 */
export function parseDuration(value: string): number {
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const m = ISO_RE.exec(v.toUpperCase());
  if (!m || v.length <= 1 || /T$/i.test(v) || m.slice(1).every((p) => p === undefined)) {
    throw new Error(`"${value}" is not an ISO 8601 duration (e.g. PT0.5S, PT5M, P30D) or a number of milliseconds`);
  }
  const [, w, d, h, min, s] = m;
  const n = (x: string | undefined) => (x === undefined ? 0 : Number(x));
  const seconds = s === undefined ? 0 : Number(s.replace(',', '.'));
  return Math.round(n(w) * WEEK + n(d) * DAY + n(h) * HOUR + n(min) * MINUTE + seconds * SECOND);
}
