import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { authenticateKey } from '../../core/api-keys';
import type { RequestSource } from '../../core/context';
import { hashKey } from '../../domain/api-keys';
import { ApiError } from '../../domain/errors';
import type { AppEnv } from '../types';

export { hashKey };

/** Environment a key belongs to, from its prefix, or null for a malformed key. */
export function keyEnvironment(key: string): 'sandbox' | 'live' | null {
  if (key.startsWith('sk_test_')) return 'sandbox';
  if (key.startsWith('sk_live_')) return 'live';
  return null;
}

const unauthorized = (code: 'authentication_required' | 'invalid_api_key' | 'environment_mismatch', message: string) =>
  new ApiError(401, code, message, null);

/**
 * Bearer authentication (spec "Authentication"; docs/api-keys.md): the key's business, environment
 * and role. 401 authentication_required (no header), invalid_api_key, api_key_revoked,
 * api_key_expired (rolled, past its grace), environment_mismatch (key of the other environment).
 */
export const authenticate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header('Authorization');
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) throw unauthorized('authentication_required', 'Send your API key as "Authorization: Bearer sk_test_…"');
  const key = m[1];
  const env = c.get('environment');
  const keyEnv = keyEnvironment(key);
  if (keyEnv && keyEnv !== env) {
    throw unauthorized(
      'environment_mismatch',
      env === 'sandbox'
        ? 'This is a sandbox address and the key is a live key (sk_live_…); use a sk_test_ key or the live address'
        : 'This is a live address and the key is a sandbox key (sk_test_…); use a sk_live_ key or the sandbox address',
    );
  }
  if (!keyEnv) throw unauthorized('invalid_api_key', 'The API key is not valid');
  c.set('caller', { ...(await authenticateKey(c.get('core'), key)), source: requestSource(c) });
  await next();
};

/** Where the request came from, for the audit trail (src/core/audit.ts): socket peer, X-Forwarded-For, User-Agent, request id. */
function requestSource(c: Context<AppEnv>): RequestSource {
  let ip: string | null = null;
  try {
    ip = getConnInfo(c).remote.address ?? null;
  } catch {
    // in-process request (no socket)
  }
  const clip = (v: string | undefined) => (v === undefined ? null : v.slice(0, 512));
  return { ip, forwardedFor: clip(c.req.header('X-Forwarded-For')), userAgent: clip(c.req.header('User-Agent')), requestId: c.get('requestId') ?? null };
}
