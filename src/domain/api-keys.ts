import { createHash } from 'node:crypto';

/**
 * SHA-256 hex of a full API key, as stored in `api_keys.key_hash` (docs/architecture.md "Money
 * rules", rule 8: keys are stored hashed; the secret is shown once). Pure: the same key always
 * gives the same 64-character lowercase hex string.
 */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');
