/** The public receipt page of a payout (spec "Receipt"), no API key; the random token is unrelated to the payout id. */
import type { Hono } from 'hono';
import { findPayoutByReceiptToken, payoutFromRow } from '../../core/payouts';
import { renderPayout, type WirePayout } from '../../wire/surface-a/payouts';
import type { AppEnv } from '../types';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

const STATUS_TEXT: Record<string, string> = {
  pending: 'Pending',
  submitted: 'Submitted',
  delivering: 'On its way',
  awaiting_claim: 'Waiting for the recipient to claim',
  claimed: 'Claimed, on its way',
  succeeded: 'Delivered',
  failed: 'Failed (funds returned to the sender)',
  refunded: 'Returned by the provider',
  canceled: 'Canceled',
};

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{color:#666}dd{margin:0}
.banner{background:#fff4ce;padding:.4rem .8rem;border-radius:.3rem}h1{font-size:1.4rem}</style></head>
<body>${body}</body></html>`;
}

const when = (iso: string | null) => (iso ? `${iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC')}` : '—');

/** The receipt HTML of a payout (wire shape, recipient already masked). */
export function receiptHtml(p: WirePayout, environment: string): string {
  const recipient = Object.entries(p.recipient)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${esc(k.replace(/_/g, ' '))}: ${esc(String(v))}`)
    .join('<br>');
  const rows: [string, string][] = [
    ['Status', esc(STATUS_TEXT[p.status] ?? p.status)],
    ['Amount received', `${esc(p.destination_amount)} ${esc(p.destination_currency)}`],
    ['Amount sent', `${esc(p.source_amount)} ${esc(p.source_currency)} (fees ${esc(p.fees.total)} ${esc(p.fees.currency)})`],
    ['Rate', `1 ${esc(p.source_currency)} = ${esc(p.rate)} ${esc(p.destination_currency)}`],
    ['Channel', esc(p.channel)],
    ['Recipient', `${esc(p.recipient.type as string)}${recipient ? `<br>${recipient}` : ''}`],
    ['Created', esc(when(p.created_at))],
    ['Delivered', esc(when(p.delivered_at))],
    ['Payout', esc(p.id)],
    ['Provider reference', esc(p.provider_reference ?? '—')],
  ];
  if (p.failure) rows.splice(1, 0, ['Reason', esc(p.failure.message)]);
  const banner = environment === 'sandbox' ? '<p class="banner">Sandbox: no real money moved.</p>' : '';
  return layout(
    `Payout receipt ${p.id}`,
    `${banner}<h1>Payout receipt</h1><dl>${rows.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join('')}</dl>`,
  );
}

/** Registers `GET /r/:token` (HTML; 404 page for an unknown token). */
export function registerReceiptPage(app: Hono<AppEnv>): void {
  app.get('/r/:token', async (c) => {
    const row = await findPayoutByReceiptToken(c.get('core').db, c.req.param('token'));
    c.header('Cache-Control', 'no-store');
    if (!row) {
      return c.html(layout('Receipt not found', '<h1>Receipt not found</h1><p>This receipt link is not valid.</p>'), 404);
    }
    return c.html(receiptHtml(renderPayout(payoutFromRow(row)), row.environment), 200);
  });
}
