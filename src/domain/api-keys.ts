import { createHash } from 'node:crypto';

/** SHA-256 hex of a full API key, as stored (docs/architecture.md "Money rules" 8). */
export const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');
