/**
 * The sepa_credit_transfer module's variables (docs/configuration.md "Rails", generated from these
 * descriptions by `npm run docs:config`). Unset connection variables keep the live `sepa_eur`
 * channel `paused` (docs/rails.md "Connecting a bank").
 */
import { z } from 'zod';
import { isoDuration } from '../../seams/settings';

export const SEPA_SETTINGS = {
  RAIL_SEPA_SFTP_HOST: z.string().min(1).optional().describe("the bank's SFTP server (unset: the live `sepa_eur` channel stays `paused`; docs/rails.md \"Connecting a bank\")"),
  RAIL_SEPA_SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(22).describe("the bank's SFTP port"),
  RAIL_SEPA_SFTP_USER: z.string().min(1).optional().describe('our SFTP login (unset: the channel stays `paused`)'),
  RAIL_SEPA_SFTP_KEY_PATH: z.string().min(1).optional().describe('path of our SFTP private key, read at connect time and never logged (unset: the channel stays `paused`)'),
  RAIL_SEPA_SFTP_HOST_KEY: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256:<43 base64 characters>, as ssh-keygen -lf prints it')
    .optional()
    .describe("the bank's pinned host key (`SHA256:…`, as `ssh-keygen -lf` prints it; unset: the channel stays `paused`)"),
  RAIL_SEPA_UPLOAD_DIR: z.string().min(1).default('inbox').describe('where we upload pain.001 files'),
  RAIL_SEPA_DOWNLOAD_DIR: z.string().min(1).default('outbox').describe('where the bank writes pain.002, camt.054 and camt.053 files'),
  RAIL_SEPA_DEBTOR_NAME: z.string().min(1).max(70).optional().describe("the platform's settlement account holder (the pain.001 debtor; unset: the channel stays `paused`)"),
  RAIL_SEPA_DEBTOR_IBAN: z.string().min(15).max(34).optional().describe("the settlement account's IBAN (unset: the channel stays `paused`)"),
  RAIL_SEPA_DEBTOR_BIC: z
    .string()
    .regex(/^[A-Z]{6}[A-Z0-9]{2}([A-Z0-9]{3})?$/, 'a BIC of 8 or 11 characters')
    .optional()
    .describe("the settlement account's BIC (unset: the channel stays `paused`)"),
  RAIL_SEPA_BANK_NAME: z.string().min(1).max(140).default('Partner bank').describe("the bank's name on live virtual accounts"),
  RAIL_SEPA_CUTOFF: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'HH:MM (24 h)')
    .default('14:00')
    .describe('daily cut-off (HH:MM in `RAIL_SEPA_TIME_ZONE`); later files execute on the next TARGET2 business day'),
  RAIL_SEPA_TIME_ZONE: z.string().default('Europe/Brussels').describe('IANA time zone of the cut-off'),
  RAIL_SEPA_BATCH_WINDOW: isoDuration('PT15M').default('PT15M').describe('how long payouts are collected into one file'),
  RAIL_SEPA_POLL_INTERVAL: isoDuration('PT1M').default('PT1M').describe("how often the bank's outbox is listed"),
  RAIL_SEPA_RETURN_WINDOW: isoDuration('P14D').default('P14D').describe('how long after settlement a return still refunds'),
  RAIL_SEPA_VIRTUAL_IBAN_RANGE: z
    .string()
    .regex(/^[A-Z]{2}:[0-9A-Z]{4,}$/, '<country>:<leading BBAN characters>, e.g. DE:370400440532')
    .optional()
    .describe('`<country>:<leading BBAN characters>` the bank assigned, e.g. `DE:370400440999` (unset: no live EUR virtual accounts)'),
  RAIL_SEPA_MAX_FILE_TRANSACTIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(10_000)
    .describe('most transactions in one pain.001 (1-100,000); a window with more is split into several files, each valid and uploaded (docs/rails.md "Bank files at scale")'),
  RAIL_SEPA_VOP_UPLOAD_DIR: z.string().min(1).default('vop/inbox').describe('where we upload Verification of Payee requests (docs/payee-verification.md "On the bank\'s SFTP")'),
  RAIL_SEPA_VOP_DOWNLOAD_DIR: z.string().min(1).default('vop/outbox').describe("where the bank writes its pain.002 VoP reports (kept apart from `RAIL_SEPA_DOWNLOAD_DIR`, which the inbox poller reads)"),
  RAIL_SEPA_VOP_TIMEOUT: isoDuration('PT5S').default('PT5S').describe('how long a Verification of Payee waits for the bank\'s report before it counts as unavailable and is asked again later (EPC VOP: 5 s)'),
  ISO20022_XSD_DIR: z.string().optional().describe('directory of the pinned official ISO 20022 XSDs (unset: `.tools/iso20022-xsd` of the checkout, fetched on first use; docs/rails.md "ISO 20022 files and schemas")'),
  XMLLINT_PATH: z.string().optional().describe('the libxml2 `xmllint` that validates ISO 20022 files over 1 MiB (unset: `xmllint` on `PATH`; absent: `xmllint-wasm`)'),
};
