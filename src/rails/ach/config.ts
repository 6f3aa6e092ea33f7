/** The live ach_usd rail configuration (docs/rails.md "ACH"; RAIL_ACH_*). Pure. */
import type { z } from 'zod';
import { parseDuration } from '../../domain/durations';
import type { SftpConnectionConfig } from '../sftp/transport';
import type { ACH_SETTINGS } from './settings';

/** The module's parsed variables (src/rails/ach/settings.ts). */
export type AchSettings = z.infer<z.ZodObject<typeof ACH_SETTINGS>>;

export const ACH_RAIL = 'ach';

export interface AchRailConfig {
  sftp: SftpConnectionConfig;
  uploadDir: string;
  downloadDir: string;
  /** 9 digits; its first 8 prefix every trace number. */
  odfiRouting: string;
  odfiName: string;
  /** 10 characters. */
  companyId: string;
  companyName: string;
  entryDescription: string;
  /** `HH:MM` in `timeZone`, or null: next-day only. */
  sameDayCutOff: string | null;
  timeZone: string;
  batchWindowMs: number;
  maxFileTransactions: number;
  pollIntervalMs: number;
  /** How long after settlement a return is still applied, in ms. */
  returnWindowMs: number;
  /** Testing only; null in production. */
  settleAfterMs: number | null;
  virtualAccountRange: { routingNumber: string; accountPrefix: string } | null;
}

/** Null with the unset variable names when any connection variable is missing (the channel stays `paused`). */
export function achRailConfig(config: AchSettings): { config: AchRailConfig; missing: [] } | { config: null; missing: string[] } {
  const required = {
    RAIL_ACH_SFTP_HOST: config.RAIL_ACH_SFTP_HOST,
    RAIL_ACH_SFTP_USER: config.RAIL_ACH_SFTP_USER,
    RAIL_ACH_SFTP_KEY_PATH: config.RAIL_ACH_SFTP_KEY_PATH,
    RAIL_ACH_SFTP_HOST_KEY: config.RAIL_ACH_SFTP_HOST_KEY,
    RAIL_ACH_ODFI_ROUTING: config.RAIL_ACH_ODFI_ROUTING,
    RAIL_ACH_COMPANY_ID: config.RAIL_ACH_COMPANY_ID,
  };
  const missing = Object.entries(required)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length > 0) return { config: null, missing };
  const range = config.RAIL_ACH_VIRTUAL_ACCOUNT_RANGE?.split(':');
  return {
    missing: [],
    config: {
      sftp: {
        host: config.RAIL_ACH_SFTP_HOST!,
        port: config.RAIL_ACH_SFTP_PORT,
        username: config.RAIL_ACH_SFTP_USER!,
        privateKeyPath: config.RAIL_ACH_SFTP_KEY_PATH!,
        hostKeySha256: config.RAIL_ACH_SFTP_HOST_KEY!,
      },
      uploadDir: config.RAIL_ACH_UPLOAD_DIR,
      downloadDir: config.RAIL_ACH_DOWNLOAD_DIR,
      odfiRouting: config.RAIL_ACH_ODFI_ROUTING!,
      odfiName: config.RAIL_ACH_ODFI_NAME,
      companyId: config.RAIL_ACH_COMPANY_ID!,
      companyName: config.RAIL_ACH_COMPANY_NAME,
      entryDescription: config.RAIL_ACH_ENTRY_DESCRIPTION,
      sameDayCutOff: config.RAIL_ACH_SAME_DAY_CUTOFF || null,
      timeZone: config.RAIL_ACH_TIME_ZONE,
      batchWindowMs: parseDuration(config.RAIL_ACH_BATCH_WINDOW),
      maxFileTransactions: config.RAIL_ACH_MAX_FILE_TRANSACTIONS,
      pollIntervalMs: parseDuration(config.RAIL_ACH_POLL_INTERVAL),
      returnWindowMs: parseDuration(config.RAIL_ACH_RETURN_WINDOW),
      settleAfterMs: config.RAIL_ACH_SETTLE_AFTER ? parseDuration(config.RAIL_ACH_SETTLE_AFTER) : null,
      virtualAccountRange: range ? { routingNumber: range[0]!, accountPrefix: range[1]! } : null,
    },
  };
}
