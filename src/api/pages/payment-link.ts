/**
 * The public payment page of a payment link and its payment requests (spec "PaymentLink": url), no
 * API key: how to pay by each ready method, virtual account details whole (the API masks them; a
 * payer needs them), a request's amount, reference and deadline. Unknown or unpublished: 404 page.
 */
import type { Context, Hono } from 'hono';
import { loadPaymentPage, type PageAccount, type PaymentPage } from '../../core/payment-links/page';
import { displayIdentifier } from '../../domain/funding';
import type { AppEnv } from '../types';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:38rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.4rem 1rem}dt{color:#666}dd{margin:0;font-variant-numeric:tabular-nums}
.banner{background:#fff4ce;padding:.4rem .8rem;border-radius:.3rem}.amount{font-size:1.6rem;font-weight:600}
section{border-top:1px solid #ddd;margin-top:1.2rem}h1{font-size:1.4rem}h2{font-size:1.1rem}</style></head>
<body>${body}</body></html>`;
}

const LABELS: Record<string, string> = {
  beneficiary_name: 'Beneficiary',
  bank_name: 'Bank',
  account_number: 'Account number',
  routing_number: 'Routing number (ABA)',
  account_type: 'Account type',
  iban: 'IBAN',
  bic: 'BIC',
  clabe: 'CLABE',
};
const ORDER = ['beneficiary_name', 'iban', 'bic', 'clabe', 'account_number', 'routing_number', 'account_type', 'bank_name'];
const RAIL_NAMES: Record<string, string> = { ach_usd: 'ACH (USD)', sepa_eur: 'SEPA (EUR)', spei_mxn: 'SPEI (MXN)' };

function accountHtml(a: PageAccount, reference: string | null): string {
  const keys = [...ORDER.filter((k) => k in a.details), ...Object.keys(a.details).filter((k) => !ORDER.includes(k))];
  const rows = keys.map((k) => `<dt>${esc(LABELS[k] ?? k)}</dt><dd data-field="${esc(k)}">${esc(displayIdentifier(k, a.details[k]))}</dd>`);
  if (reference) rows.push(`<dt>Reference</dt><dd data-field="reference">${esc(reference)}</dd>`);
  else if (a.referenceRequired) rows.push('<dt>Reference</dt><dd>Quote the reference on your invoice (required)</dd>');
  return `<div class="account" data-currency="${esc(a.currency)}"><h3>${esc(RAIL_NAMES[a.rail] ?? a.rail)}</h3><dl>${rows.join('')}</dl></div>`;
}

/** The page's HTML body for loaded data (everything escaped). */
export function paymentPageHtml(p: PaymentPage): string {
  const parts: string[] = [];
  if (p.environment === 'sandbox') parts.push('<p class="banner">Sandbox: no real money moves.</p>');
  parts.push(`<h1 id="business">${esc(p.businessName)}</h1><p id="link-name">${esc(p.linkName)}</p>`);
  const r = p.request;
  if (r) {
    parts.push(
      `<section id="request"><p class="amount" id="amount">${esc(r.amount)} ${esc(r.currency)}</p><dl>` +
        `<dt>Reference to quote</dt><dd id="reference">${esc(r.reference)}</dd>` +
        `<dt>Pay before</dt><dd>${esc(r.expiresAt.toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</dd></dl></section>`,
    );
    if (r.status !== 'open') {
      parts.push(`<p id="status">${r.status === 'paid' ? 'This request has been paid. Thank you.' : 'This request has expired.'}</p>`);
      return layout(`${p.businessName}: ${p.linkName}`, parts.join(''));
    }
  }
  if (p.readyMethods.length === 0) {
    parts.push('<p id="no-methods">This business cannot take payments here yet.</p>');
  }
  for (const m of p.readyMethods) {
    if (m === 'bank_transfer') {
      const accounts = p.accounts.map((a) => accountHtml(a, r ? r.reference : null));
      parts.push(
        `<section id="bank_transfer"><h2>Pay by bank transfer</h2>${
          accounts.length ? accounts.join('') : `<p>No account in ${esc(r?.currency ?? '')} is open yet.</p>`
        }</section>`,
      );
    }
    if (m === 'crypto' && p.crypto) {
      const k = p.crypto;
      parts.push(
        `<section id="crypto"><h2>Pay with USDC on Solana</h2><dl>` +
          (k.amount ? `<dt>Amount</dt><dd id="crypto-amount">${esc(k.amount)} USDC</dd>` : `<dt>Smallest payment</dt><dd>${esc(k.minimumDeposit)} USDC</dd>`) +
          `<dt>Send USDC (SPL token, Solana) to</dt><dd id="crypto-address"><code>${esc(k.address)}</code></dd></dl>` +
          `<p>Only USDC on the Solana network. ${r ? 'Send exactly this amount; add the reference as a memo if your wallet allows it.' : ''} Credited once the transfer is finalized.</p></section>`,
      );
    }
  }
  return layout(`${p.businessName}: ${p.linkName}`, parts.join(''));
}

async function serve(c: Context<AppEnv>, token: string, requestToken?: string): Promise<Response> {
  c.header('Cache-Control', 'no-store');
  const page = await loadPaymentPage(c.get('core').db, token, requestToken, c.get('core').config);
  if (!page) {
    return c.html(layout('Payment page not found', '<h1>Payment page not found</h1><p>This payment link is not valid or no longer published.</p>'), 404);
  }
  return c.html(paymentPageHtml(page), 200);
}

/** Registers `GET /pay/:token` and `GET /pay/:token/:requestToken` (HTML; 404 page when unknown or unpublished). */
export function registerPaymentLinkPage(app: Hono<AppEnv>): void {
  app.get('/pay/:token', (c) => serve(c, c.req.param('token')));
  app.get('/pay/:token/:requestToken', (c) => serve(c, c.req.param('token'), c.req.param('requestToken')));
}
