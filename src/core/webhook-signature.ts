import { createHmac, timingSafeEqual } from 'node:crypto';

/** Webhook signatures (spec "Events"): Surface A `t=<unix s>,v1=<hex>` (Stripe's layout), Surface B `sha256=<hex>` (GitHub's). */

/** Headers carrying Surface A's signature, Surface B's, and Surface B's made with the replaced secret. */
export const SURFACE_A_SIGNATURE_HEADER = 'Service-Signature';
export const SURFACE_B_SIGNATURE_HEADER = 'X-Service-Signature';
export const SURFACE_B_PREVIOUS_SIGNATURE_HEADER = 'X-Service-Signature-Previous';
/** Signature age a receiver accepts, in seconds (spec "Limits": older than five minutes is rejected). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const hmacHex = (secret: string, payload: string) => createHmac('sha256', secret).update(payload, 'utf8').digest('hex');

function safeEqualHex(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Surface A header: `t=<timestamp>,v1=<hex HMAC-SHA256(secret, "<t>.<rawBody>")>`, one `v1` per secret. */
export function signSurfaceA(secret: string | readonly string[], rawBody: string, timestamp: number): string {
  const t = Math.floor(timestamp);
  const secrets = typeof secret === 'string' ? [secret] : secret;
  return [`t=${t}`, ...secrets.map((k) => `v1=${hmacHex(k, `${t}.${rawBody}`)}`)].join(',');
}

/** Verifies a Surface A header: one `v1` matches in constant time and `t` is within `toleranceSeconds` of `now`. */
export function verifySurfaceA(
  secret: string,
  rawBody: string,
  header: string,
  opts: { now?: number; toleranceSeconds?: number } = {},
): boolean {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    if (k === 't' && /^\d+$/.test(v)) t = Number(v);
    else if (k === 'v1') v1.push(v);
  }
  if (t === undefined || v1.length === 0) return false;
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (opts.toleranceSeconds ?? SIGNATURE_TOLERANCE_SECONDS)) return false;
  const expected = hmacHex(secret, `${t}.${rawBody}`);
  return v1.some((s) => safeEqualHex(s, expected));
}

/** Surface B header value for `rawBody`: `sha256=<lowercase hex HMAC-SHA256(secret, rawBody)>`. */
export function signSurfaceB(secret: string, rawBody: string): string {
  return `sha256=${hmacHex(secret, rawBody)}`;
}

/** Surface B signature headers given the signing secrets, current first. */
export function surfaceBSignatureHeaders(secrets: readonly string[], rawBody: string): Record<string, string> {
  const [current, previous] = secrets;
  return {
    [SURFACE_B_SIGNATURE_HEADER]: signSurfaceB(current, rawBody),
    ...(previous !== undefined ? { [SURFACE_B_PREVIOUS_SIGNATURE_HEADER]: signSurfaceB(previous, rawBody) } : {}),
  };
}

/** Verifies a Surface B `sha256=<hex>` header in constant time. */
export function verifySurfaceB(secret: string, rawBody: string, header: string): boolean {
  return header.startsWith('sha256=') && safeEqualHex(header, signSurfaceB(secret, rawBody));
}
