/**
 * The payout partner part of `npm run demo:live` (docs/rails.md "Payout partner"): the test
 * partner (tools/test-partner/partner.ts) on loopback, its webhooks sent to the service's
 * POST /hooks/partner/wise over real HTTP, and a live spei_mxn and a live pix_brl payout through
 * it, each printed with the partner's transfer, state, rate and fee. The files folder gets
 * `partner/`: every request the test partner got and every webhook it sent (headers and bodies,
 * numbered JSON files) beside its public key `partner-public-key.pem`.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { clabeCheckDigit } from '../../src/domain/funding';
import { startTestPartner, type TestPartner } from '../test-partner/partner';

/** Starts the demo's test partner, logging into `<filesDir>/partner`; its env configures the service. */
export async function startDemoPartner(filesDir: string): Promise<TestPartner> {
  const partner = await startTestPartner({ stepMs: 400, logDir: join(filesDir, 'partner') });
  console.log(`test partner: ${partner.url} (Wise Platform API shape; webhooks signed with its own RSA key)`);
  return partner;
}

/** What the part needs of the demo: the service's base URL, the live key, its API call and wait helpers. */
export interface DemoContext {
  base: string;
  live: string;
  call: (method: string, path: string, key: string, body?: unknown) => Promise<any>;
  until: <T>(fn: () => Promise<T | null>, timeoutMs: number) => Promise<T | null>;
}

/**
 * Sends a live spei_mxn and a live pix_brl payout through the partner and waits for each to end
 * `succeeded`. Throws when a channel does not go live or a payout does not succeed.
 */
export async function partnerPart(partner: TestPartner, filesDir: string, ctx: DemoContext): Promise<void> {
  partner.setWebhookTarget(`${ctx.base}/hooks/partner/wise`);
  for (const id of ['spei_mxn', 'pix_brl']) {
    const ch = await ctx.until(async () => {
      const list = await ctx.call('GET', '/v1/channels', ctx.live);
      return list.data.find((c: any) => c.id === id && c.status === 'live') ?? null;
    }, 60_000);
    console.log(`\nchannel ${id} in live: ${ch ? 'live (through the payout partner)' : 'paused'}`);
    if (!ch) throw new Error(`${id} did not go live: the service could not reach the test partner`);
  }
  const first17 = '00218000012345678';
  const payouts = [
    { label: 'spei_mxn', body: { channel: 'spei_mxn', recipient: { type: 'bank_account', holder_name: 'Ana Lopez Garcia', clabe: `${first17}${clabeCheckDigit(first17)}`, recipient_kind: 'individual' }, source_amount: '30.00', reference: 'Demo SPEI' } },
    { label: 'pix_brl', body: { channel: 'pix_brl', recipient: { type: 'bank_account', holder_name: 'Joana Silva', pix_key: 'joana@example.com', tax_id: '12345678909', recipient_kind: 'individual' }, source_amount: '30.00', reference: 'Demo Pix' } },
  ];
  const sent: Array<{ label: string; id: string }> = [];
  for (const p of payouts) {
    const r = await ctx.call('POST', '/v1/payouts', ctx.live, p.body);
    sent.push({ label: p.label, id: r.id });
    console.log(`payout ${r.id} (${p.label}, to "${p.body.recipient.holder_name}"): ${r.status}`);
  }
  console.log('\nwaiting for the partner (states every 0.4 s, signed webhooks to /hooks/partner/wise) ...');
  for (const s of sent) {
    const done = await ctx.until(async () => {
      const r = await ctx.call('GET', `/v1/payouts/${s.id}`, ctx.live);
      return ['succeeded', 'failed', 'refunded'].includes(r.status) ? r : null;
    }, 90_000);
    const t = partner.transfers().find((x) => String(x.id) === done?.provider_reference);
    console.log(
      `${s.label.padEnd(10)} ${s.id}  ${done?.status ?? 'still delivering'}  partner transfer ${t?.id ?? '?'} ${t?.status ?? ''}  ${t ? `${t.targetValue} ${t.targetCurrency} for ${t.sourceValue} ${t.sourceCurrency} at ${t.rate}` : ''}`,
    );
    if (done?.status !== 'succeeded') throw new Error(`payout ${s.id} (${s.label}) did not succeed through the partner`);
  }
  const folder = join(filesDir, 'partner');
  const names = readdirSync(folder).sort();
  console.log(`\npartner/: ${folder} (${names.filter((n) => n.endsWith('-request.json')).length} requests, ${names.filter((n) => n.endsWith('-webhook.json')).length} webhooks, partner-public-key.pem)`);
}
