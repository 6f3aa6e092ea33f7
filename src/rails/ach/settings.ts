/**
 * The ach module's variables (docs/configuration.md "Rails", generated from these descriptions by
 * `npm run docs:config`). Unset connection variables keep the live `ach_usd` channel `paused`
 * (docs/rails.md "ACH").
 */
import { z } from 'zod';
import { isoDuration } from '../../seams/settings';

export const ACH_SETTINGS = {
  RAIL_ACH_SFTP_HOST: z.string().min(1).optional().describe("the ODFI's SFTP server (unset: the live `ach_usd` channel stays `paused`; docs/rails.md \"ACH\")"),
  RAIL_ACH_SFTP_PORT: z.coerce.number().int().min(1).max(65535).default(22).describe("the ODFI's SFTP port"),
  RAIL_ACH_SFTP_USER: z.string().min(1).optional().describe('our SFTP login (unset: the channel stays `paused`)'),
  RAIL_ACH_SFTP_KEY_PATH: z.string().min(1).optional().describe('path of our SFTP private key, read at connect time and never logged (unset: the channel stays `paused`)'),
  RAIL_ACH_SFTP_HOST_KEY: z
    .string()
    .regex(/^SHA256:[A-Za-z0-9+/]{43}$/, 'SHA256:<43 base64 characters>, as ssh-keygen -lf prints it')
    .optional()
    .describe("the ODFI's pinned host key (`SHA256:…`; unset: the channel stays `paused`)"),
  RAIL_ACH_UPLOAD_DIR: z.string().min(1).default('inbox').describe('where we upload NACHA files'),
  RAIL_ACH_DOWNLOAD_DIR: z.string().min(1).default('outbox').describe('where the ODFI writes return, NOC, incoming credit and BAI2 files'),
  RAIL_ACH_ODFI_ROUTING: z
    .string()
    .regex(/^[0-9]{9}$/, '9 digits (an ABA routing number)')
    .optional()
    .describe("the ODFI's ABA routing number: immediate destination, first 8 digits of every trace number (unset: the channel stays `paused`)"),
  RAIL_ACH_ODFI_NAME: z.string().min(1).max(23).default('PARTNER BANK').describe("the ODFI's name (immediate destination name)"),
  RAIL_ACH_COMPANY_ID: z
    .string()
    .regex(/^[0-9A-Z ]{10}$/, '10 characters (digits, upper-case letters, spaces)')
    .optional()
    .describe("the originator's company identification in every batch, 10 characters (unset: the channel stays `paused`)"),
  RAIL_ACH_COMPANY_NAME: z.string().min(1).max(16).default('PAYOUTS').describe("the originator's company name in every batch (16 characters)"),
  RAIL_ACH_ENTRY_DESCRIPTION: z.string().min(1).max(10).default('PAYOUT').describe('the company entry description in every batch (10 characters)'),
  RAIL_ACH_SAME_DAY_CUTOFF: z
    .string()
    .regex(/^(([01]\d|2[0-3]):[0-5]\d)?$/, 'HH:MM (24 h), or empty to send next-day only')
    .default('14:45')
    .describe('same-day ACH cut-off (HH:MM in `RAIL_ACH_TIME_ZONE`; empty: next-day only); later files take the next Federal Reserve business day'),
  RAIL_ACH_TIME_ZONE: z.string().default('America/New_York').describe('IANA time zone of the cut-off'),
  RAIL_ACH_BATCH_WINDOW: isoDuration('PT15M').default('PT15M').describe('how long payouts are collected into one NACHA file'),
  RAIL_ACH_POLL_INTERVAL: isoDuration('PT1M').default('PT1M').describe("how often the ODFI's outbox is listed"),
  RAIL_ACH_RETURN_WINDOW: isoDuration('P60D').default('P60D').describe('how long after settlement a return still refunds'),
  RAIL_ACH_SETTLE_AFTER: isoDuration('PT3S')
    .optional()
    .describe("tests and demos only: settle an uploaded file this long after its upload (unset, as in production: entries settle at the Fed's settlement of their effective date)"),
  RAIL_ACH_VIRTUAL_ACCOUNT_RANGE: z
    .string()
    .regex(/^[0-9]{9}:[0-9]{1,10}$/, '<routing number>:<leading account digits>, e.g. 091000019:99988')
    .optional()
    .describe('`<routing number>:<leading account digits>` the ODFI assigned, e.g. `091000019:99988` (12-digit account numbers; unset: no live USD virtual accounts)'),
  RAIL_ACH_MAX_FILE_TRANSACTIONS: z.coerce
    .number()
    .int()
    .min(1)
    .max(100_000)
    .default(10_000)
    .describe('most entries in one NACHA file (1-100,000); a window with more is split into several files, each valid and uploaded (docs/rails.md "Bank files at scale")'),
};
