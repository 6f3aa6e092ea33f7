import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { Config } from '../config';

/** Secrets encrypted at rest (docs/security.md "Secrets at rest"): `enc:v1:<key id>:<iv>:<ciphertext and tag>`, AES-256-GCM, row-bound AAD. */

/** The configured KEKs and which one seals new values. */
export interface Keyring {
  /** Key id -> 32-byte AES key. */
  keys: ReadonlyMap<string, Buffer>;
  activeKeyId: string;
  development: boolean;
}

const PREFIX = 'enc:v1:';
const DEV_KEY_ID = 'dev';
const DEV_KEY = createHash('sha256').update('payouts-backend development key-encryption key; never for live data').digest();

/** Thrown when a stored value cannot be opened: unknown key id, or tampered ciphertext / wrong row. */
export class SecretUnreadableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretUnreadableError';
  }
}

const keyrings = new WeakMap<object, Keyring>();

/** The keyring of a configuration. Throws for an unknown active key id, a key not 32 bytes, or production without SECRETS_KEYS. */
export function keyringFor(config: Pick<Config, 'SECRETS_KEYS' | 'SECRETS_ACTIVE_KEY_ID' | 'NODE_ENV'>): Keyring {
  const cached = keyrings.get(config);
  if (cached) return cached;
  let ring: Keyring;
  if (!config.SECRETS_KEYS) {
    if (config.NODE_ENV === 'production') {
      throw new Error('SECRETS_KEYS is required when NODE_ENV=production: the embedded development key must never protect live secrets (docs/configuration.md "Security")');
    }
    ring = { keys: new Map([[DEV_KEY_ID, DEV_KEY]]), activeKeyId: DEV_KEY_ID, development: true };
  } else {
    const keys = new Map<string, Buffer>();
    for (const part of config.SECRETS_KEYS.split(',')) {
      const [id, b64] = part.trim().split(':') as [string, string];
      const key = Buffer.from(b64.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      if (key.length !== 32) throw new Error(`SECRETS_KEYS: key ${id} must be 32 bytes (base64), got ${key.length}`);
      keys.set(id, key);
    }
    const activeKeyId = config.SECRETS_ACTIVE_KEY_ID ?? [...keys.keys()][0]!;
    if (!keys.has(activeKeyId)) throw new Error(`SECRETS_ACTIVE_KEY_ID ${activeKeyId} is not one of the SECRETS_KEYS`);
    ring = { keys, activeKeyId, development: false };
  }
  keyrings.set(config, ring);
  return ring;
}

export const isSealed = (stored: string) => stored.startsWith(PREFIX);

/** The key id a stored value is sealed under, or null for legacy plain text. */
export function sealedKeyId(stored: string): string | null {
  return isSealed(stored) ? stored.slice(PREFIX.length).split(':')[0]! : null;
}

/** Seals `plaintext` under the active key, bound to `aad` (e.g. `webhook_endpoint:we_…`). */
export function sealSecret(ring: Keyring, plaintext: string, aad: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', ring.keys.get(ring.activeKeyId)!, iv);
  cipher.setAAD(Buffer.from(aad, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${ring.activeKeyId}:${iv.toString('base64url')}:${body.toString('base64url')}`;
}

/** Opens a value sealed with the same `aad` (legacy plain text unchanged). Throws {@link SecretUnreadableError}. */
export function openSecret(ring: Keyring, stored: string, aad: string): string {
  if (!isSealed(stored)) return stored;
  const [keyId, ivText, bodyText] = stored.slice(PREFIX.length).split(':') as [string, string, string];
  const key = ring.keys.get(keyId);
  if (!key) throw new SecretUnreadableError(`secret sealed under key ${keyId}, which SECRETS_KEYS does not list`);
  const body = Buffer.from(bodyText ?? '', 'base64url');
  if (body.length < 16) throw new SecretUnreadableError('sealed secret is truncated');
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(ivText ?? '', 'base64url'));
    decipher.setAAD(Buffer.from(aad, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  } catch {
    throw new SecretUnreadableError(`sealed secret does not open under key ${keyId} for ${aad}`);
  }
}

export const webhookSecretAad = (endpointId: string) => `webhook_endpoint:${endpointId}`;
