import type { Hono } from 'hono';
import type { AppEnv } from '../types';

/** Public HTML pages (no API key): receipts, claim pages. Each page module registers here. */
export function registerPages(_app: Hono<AppEnv>): void {}
