/**
 * The configuration of the live sepa_eur bank rail (docs/rails.md "Connecting a bank"), read from
 * the process configuration (src/config.ts, RAIL_SEPA_*). Pure: no I/O.
 */
import type { Config } from '../../config';
import { parseDuration } from '../../domain/durations';

/** Catalog rail of the sepa_eur channel: SEPA Credit Transfers in ISO 20022 files. */
export const SEPA_RAIL = 'sepa_credit_transfer';

/** A working SEPA rail configuration: every field needed to connect and to write files. */
export interface SepaRailConfig {
  sftp: { host: string; port: number; username: string; privateKeyPath: string; hostKeySha256: string };
  uploadDir: string;
  downloadDir: string;
  /** The platform's settlement account (pain.001 debtor). */
  debtor: { name: string; iban: string; bic: string };
  /** The bank's name (live EUR virtual account details). */
  bankName: string;
  /** Daily cut-off `HH:MM` in `timeZone` (IANA). */
  cutOff: string;
  timeZone: string;
  /** Collection window of one file, in ms. */
  batchWindowMs: number;
  /** Most transactions in one pain.001 (RAIL_SEPA_MAX_FILE_TRANSACTIONS). */
  maxFileTransactions: number;
  /** Interval between listings of the bank's outbox, in ms. */
  pollIntervalMs: number;
  /** How long after settlement a return is still applied, in ms. */
  returnWindowMs: number;
  /** Live EUR virtual IBAN range: country and leading BBAN characters; null when unset. */
  virtualIbanRange: { country: string; bbanPrefix: string } | null;
}

/**
 * The SEPA rail's configuration, or null when any connection variable is missing (the channel
 * then stays `paused` in the live environment). Returns `missing` with the unset variable names.
 */
export function sepaRailConfig(config: Config): { config: SepaRailConfig; missing: [] } | { config: null; missing: string[] } {
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
      virtualIbanRange: range ? { country: range[0]!, bbanPrefix: range[1]! } : null,
    },
  };
}
