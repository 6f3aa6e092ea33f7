import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_platform';
import * as m0002 from './0002_catalog';
import * as m0003 from './0003_payouts';
import * as m0004 from './0004_webhooks';
import * as m0006 from './0006_disbursements';
import * as m0010 from './0010_funding';
import * as m0010p from './0010_policies';
import * as m0020ct from './0020_card_topups';
import * as m0020cf from './0020_claim_flow';
import * as m0020 from './0020_contact_recipients';
import * as m0020rl from './0020_rate_limits';
import * as m0030 from './0030_notifications';
import * as m0050wr from './0050_webhook_replay';
import * as m0051 from './0051_api_key_lifecycle';
import * as m0053 from './0053_test_clocks';
import * as m0054 from './0054_rails';
import * as m0055 from './0055_channel_pauses';
import * as m0056 from './0056_ach_rail';
import * as m0057akn from './0057_api_key_notify';
import * as m0062 from './0062_live_rates';
import * as m0063 from './0063_treasury';
import * as m0064pti from './0064_partner_transfer_index';
import * as m0060np from './0060_notification_providers';
import * as m0068pcd from './0068_payout_claim_destinations';
import * as m0078cid from './0078_claimant_identities';
import * as m0061sol from './0061_solana_usdc';
import * as m0065 from './0065_defense_in_depth';
import * as m0066 from './0066_event_data_format';
import * as m0069wsc from './0069_workflow_start_claims';
import * as m0070edf from './0070_event_domain_form';
import * as m0075scr from './0075_screening';
import * as m0076scc from './0076_screening_cases';
import * as m0079rsc from './0079_recipient_screenings';
import * as m0077vop from './0077_payee_verification';
import * as m0080cpy from './0080_card_payments';
import * as m0081ctp from './0081_card_topup_payments';

/** Every migration in order. Add new files here; never edit one that has shipped. */
export const migrations: Record<string, Migration> = {
  '0001_platform': m0001,
  '0002_catalog': m0002,
  '0003_payouts': m0003,
  '0004_webhooks': m0004,
  '0006_disbursements': m0006,
  '0010_funding': m0010,
  '0010_policies': m0010p,
  '0020_card_topups': m0020ct,
  '0020_claim_flow': m0020cf,
  '0020_contact_recipients': m0020,
  '0020_rate_limits': m0020rl,
  '0030_notifications': m0030,
  '0050_webhook_replay': m0050wr,
  '0051_api_key_lifecycle': m0051,
  '0053_test_clocks': m0053,
  '0054_rails': m0054,
  '0055_channel_pauses': m0055,
  '0056_ach_rail': m0056,
  '0057_api_key_notify': m0057akn,
  '0062_live_rates': m0062,
  '0063_treasury': m0063,
  '0064_partner_transfer_index': m0064pti,
  '0060_notification_providers': m0060np,
  '0061_solana_usdc': m0061sol,
  '0065_defense_in_depth': m0065,
  '0066_event_data_format': m0066,
  '0068_payout_claim_destinations': m0068pcd,
  '0069_workflow_start_claims': m0069wsc,
  '0070_event_domain_form': m0070edf,
  '0075_screening': m0075scr,
  '0076_screening_cases': m0076scc,
  '0078_claimant_identities': m0078cid,
  '0079_recipient_screenings': m0079rsc,
  '0077_payee_verification': m0077vop,
  '0080_card_payments': m0080cpy,
  '0081_card_topup_payments': m0081ctp,
};

/** Static provider (no filesystem scan), so bundlers and tsx see every migration. */
export const migrationProvider: MigrationProvider = { getMigrations: async () => migrations };
