/** The live sepa_eur rail configuration (docs/rails.md "Connecting a bank"; RAIL_SEPA_*). Pure. */
import type { z } from 'zod';
import { parseDuration } from '../../domain/durations';
import type { SEPA_SETTINGS } from './settings';

/** The module's parsed variables (src/rails/sepa/settings.ts). */
export type SepaSettings = z.infer<z.ZodObject<typeof SEPA_SETTINGS>>;

export const SEPA_RAIL = 'sepa_credit_transfer';

export interface SepaRailConfig {
  sftp: { host: string; port: number; username: string; privateKeyPath: string; hostKeySha256: string };
  uploadDir: string;
  downloadDir: string;
  /** The platform's settlement account (pain.001 debtor). */
  debtor: { name: string; iban: string; bic: string };
  bankName: string;
  /** `HH:MM` in `timeZone` (IANA). */
  cutOff: string;
  timeZone: string;
  batchWindowMs: number;
  maxFileTransactions: number;
  pollIntervalMs: number;
  /** How long after settlement a return is still applied, in ms. */
  returnWindowMs: number;
  /** Verification of Payee: SFTP directories and how long to wait for the report, in ms. */
  vop: { uploadDir: string; downloadDir: string; timeoutMs: number };
  /** Country and leading BBAN characters; null when unset. */
  virtualIbanRange: { country: string; bbanPrefix: string } | null;
}

/** Null with the unset variable names when any connection variable is missing (the channel stays `paused`). */
export function sepaRailConfig(config: SepaSettings): { config: SepaRailConfig; missing: [] } | { config: null; missing: string[] } {
  const required = {
    RAIL_SEPA_SFTP_HOST: config.RAIL_SEPA_SFTP_HOST,
    RAIL_SEPA_SFTP_USER: config.RAIL_SEPA_SFTP_USER,
    RAIL_SEPA_SFTP_KEY_PATH: config.RAIL_SEPA_SFTP_KEY_PATH,
    RAIL_SEPA_SFTP_HOST_KEY: config.RAIL_SEPA_SFTP_HOST_KEY,
    RAIL_SEPA_DEBTOR_NAME: config.RAIL_SEPA_DEBTOR_NAME,
    RAIL_SEPA_DEBTOR_IBAN: config.RAIL_SEPA_DEBTOR_IBAN,
    RAIL_SEPA_DEBTOR_BIC: config.RAIL_SEPA_DEBTOR_BIC,
  };
  const missing = Object.entries(required)
    .filter(([, v]) => !v)
    .map(([k]) => k);
  if (missing.length > 0) return { config: null, missing };
  const range = config.RAIL_SEPA_VIRTUAL_IBAN_RANGE?.split(':');
  return {
    missing: [],
    config: {
      sftp: {
        host: config.RAIL_SEPA_SFTP_HOST!,
        port: config.RAIL_SEPA_SFTP_PORT,
        username: config.RAIL_SEPA_SFTP_USER!,
        privateKeyPath: config.RAIL_SEPA_SFTP_KEY_PATH!,
        hostKeySha256: config.RAIL_SEPA_SFTP_HOST_KEY!,
      },
      uploadDir: config.RAIL_SEPA_UPLOAD_DIR,
      downloadDir: config.RAIL_SEPA_DOWNLOAD_DIR,
      debtor: { name: config.RAIL_SEPA_DEBTOR_NAME!, iban: config.RAIL_SEPA_DEBTOR_IBAN!.replace(/\s+/g, ''), bic: config.RAIL_SEPA_DEBTOR_BIC! },
      bankName: config.RAIL_SEPA_BANK_NAME,
      cutOff: config.RAIL_SEPA_CUTOFF,
      timeZone: config.RAIL_SEPA_TIME_ZONE,
      batchWindowMs: parseDuration(config.RAIL_SEPA_BATCH_WINDOW),
      maxFileTransactions: config.RAIL_SEPA_MAX_FILE_TRANSACTIONS,
      pollIntervalMs: parseDuration(config.RAIL_SEPA_POLL_INTERVAL),
      returnWindowMs: parseDuration(config.RAIL_SEPA_RETURN_WINDOW),
      vop: { uploadDir: config.RAIL_SEPA_VOP_UPLOAD_DIR, downloadDir: config.RAIL_SEPA_VOP_DOWNLOAD_DIR, timeoutMs: parseDuration(config.RAIL_SEPA_VOP_TIMEOUT) },
      virtualIbanRange: range ? { country: range[0]!, bbanPrefix: range[1]! } : null,
    },
  };
}
