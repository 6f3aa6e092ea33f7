/**
 * The public payment page of a payment link and its payment requests (spec "PaymentLink": url), no
 * API key: how to pay by each ready method, virtual account details whole (the API masks them; a
 * payer needs them), a request's amount, reference and deadline. Unknown or unpublished: 404 page.
 * Card (live, a card processor configured; docs/getting-paid.md "Card payments"): a "Pay by card"
 * form whose POST makes a card payment and answers 303 to the processor's checkout.
 */
import type { Context, Hono } from 'hono';
import { startPageCardPayment } from '../../core/payment-links/card-payment';
import { loadPaymentPage, type PageAccount, type PaymentPage } from '../../core/payment-links/page';
import { ApiError } from '../../domain/errors';
import { displayIdentifier } from '../../domain/funding';
import { pageContentSecurityPolicy } from '../middleware/security-headers';
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

/** What the page adds around the data: the card form's action path, the card checkout's outcome (`?card=`), an error of the card form. */
export interface PaymentPageView {
  cardAction?: string;
  cardNotice?: 'paid' | 'canceled' | null;
  cardError?: string | null;
}

const CARD_NOTICES = {
  paid: 'Thank you: your card payment is being confirmed.',
  canceled: 'The card payment was canceled; nothing was charged.',
} as const;

/** The page's HTML body for loaded data (everything escaped). */
export function paymentPageHtml(p: PaymentPage, view: PaymentPageView = {}): string {
  const parts: string[] = [];
  if (p.environment === 'sandbox') parts.push('<p class="banner">Sandbox: no real money moves.</p>');
  if (view.cardNotice) parts.push(`<p class="banner" id="card-notice">${esc(CARD_NOTICES[view.cardNotice])}</p>`);
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
    if (m === 'card' && p.card && view.cardAction) {
      const k = p.card;
      const error = view.cardError ? `<p class="banner" id="card-error">${esc(view.cardError)}</p>` : '';
      const amount = k.amount
        ? `<p id="card-amount">${esc(k.amount)} ${esc(k.currency)}</p>`
        : `<p><label for="card-amount">Amount (USD)</label> <input id="card-amount" name="amount" inputmode="decimal" autocomplete="off" required pattern="[0-9]{1,8}([.][0-9]{1,2})?" placeholder="25.00"></p>`;
      parts.push(
        `<section id="card"><h2>Pay by card</h2>${error}<form method="post" action="${esc(view.cardAction)}">${amount}` +
          `<button id="card-pay" type="submit">Pay by card</button></form><p>You continue to the card processor's secure checkout.</p></section>`,
      );
    }
  }
  return layout(`${p.businessName}: ${p.linkName}`, parts.join(''));
}

const NOT_FOUND_PAGE = layout('Payment page not found', '<h1>Payment page not found</h1><p>This payment link is not valid or no longer published.</p>');

const pagePath = (token: string, requestToken?: string) =>
  `/pay/${encodeURIComponent(token)}${requestToken !== undefined ? `/${encodeURIComponent(requestToken)}` : ''}`;

async function serve(c: Context<AppEnv>, token: string, requestToken?: string, cardError?: { status: 400 | 409 | 502; message: string }): Promise<Response> {
  c.header('Cache-Control', 'no-store');
  const core = c.get('core');
  const page = await loadPaymentPage(core.db, token, requestToken, core.config);
  if (!page) return c.html(NOT_FOUND_PAGE, 404);
  const notice = c.req.query('card');
  const html = paymentPageHtml(page, {
    cardAction: `${pagePath(token, requestToken)}/card`,
    cardNotice: notice === 'paid' || notice === 'canceled' ? notice : null,
    cardError: cardError?.message ?? null,
  });
  if (page.card && page.readyMethods.includes('card')) {
    // The card form is answered by a redirect to the processor's checkout, whose host is known only
    // once the session exists: allow https targets (and http when this service itself runs on http, in development).
    const formAction = core.config.publicUrl.startsWith('http:') ? ['https:', 'http:'] : ['https:'];
    c.header('Content-Security-Policy', pageContentSecurityPolicy(html, { formAction }));
  }
  return c.html(html, cardError?.status ?? 200);
}

async function payByCard(c: Context<AppEnv>, token: string, requestToken?: string): Promise<Response> {
  c.header('Cache-Control', 'no-store');
  const form = await c.req.parseBody();
  try {
    const url = await startPageCardPayment(c.get('core'), token, requestToken, form.amount);
    if (!url) return c.html(NOT_FOUND_PAGE, 404);
    return c.redirect(url, 303);
  } catch (err) {
    if (err instanceof ApiError && (err.status === 400 || err.status === 409 || err.status === 502)) return serve(c, token, requestToken, { status: err.status, message: err.message });
    throw err;
  }
}

/**
 * Registers `GET /pay/:token` and `GET /pay/:token/:requestToken` (HTML; 404 page when unknown or
 * unpublished), and their card forms' `POST .../card` (303 to the card checkout; the page again
 * with the error, 400, 409 or 502, when the amount is refused, card is not ready, the request is no
 * longer open or the processor failed).
 */
export function registerPaymentLinkPage(app: Hono<AppEnv>): void {
  app.get('/pay/:token', (c) => serve(c, c.req.param('token')));
  app.get('/pay/:token/:requestToken', (c) => serve(c, c.req.param('token'), c.req.param('requestToken')));
  app.post('/pay/:token/card', (c) => payByCard(c, c.req.param('token')));
  app.post('/pay/:token/:requestToken/card', (c) => payByCard(c, c.req.param('token'), c.req.param('requestToken')));
}
