/**
 * The public claim page of a claim-link payout (spec "What the service does": the recipient is
 * notified, claims the funds without installing an app, and chooses a payout method), in two steps:
 * `GET /c/:token` shows the amount and the sender's message with a "Claim" button;
 * `POST /c/:token/start` starts the claim flow (core startClaim: Surface B status `claimed`, event
 * `disbursement.claimed`; refused once the sender is cancelling); the page then lists the methods,
 * and `POST /c/:token` with the form field `method` claims it (starting the flow first if needed;
 * the payout workflow's `claim` Update: awaiting_claim -> claimed -> delivering -> succeeded). A GET
 * never changes anything (messaging apps fetch links for previews). No API key: the random token (the link sent to the phone or e-mail) is
 * the credential. Identity and AML checks at claim time are the rail's job; the sandbox has none.
 */
import type { Hono } from 'hono';
import { startClaim } from '../../core/claim-flow';
import { CLAIM_METHODS, claimPayout, renderPayout } from '../../core/payouts';
import { ApiError } from '../../domain/errors';
import type { AppEnv } from '../types';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

const METHOD_TEXT: Record<string, string> = {
  bank_transfer: 'Bank transfer',
  mobile_money: 'Mobile money',
  wallet: 'Wallet',
};

function page(title: string, body: string, sandbox: boolean): string {
  const banner = sandbox ? '<p class="banner">Sandbox: no real money moves.</p>' : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}
.amount{font-size:2rem;font-weight:600}.banner{background:#fff4ce;padding:.4rem .8rem;border-radius:.3rem}
button{display:block;width:100%;margin:.5rem 0;padding:.8rem;font-size:1rem;border-radius:.4rem;border:1px solid #888;background:#f6f6f6}
blockquote{border-left:3px solid #ccc;margin:1rem 0;padding-left:.8rem;color:#444}</style></head>
<body>${banner}${body}</body></html>`;
}

const NOT_FOUND = page('Claim link not found', '<h1>Claim link not found</h1><p>This link is not valid.</p>', false);

/** Registers `GET /c/:token` and `POST /c/:token` (HTML). */
export function registerClaimPage(app: Hono<AppEnv>): void {
  const load = async (core: AppEnv['Variables']['core'], token: string) =>
    core.db.selectFrom('payouts').selectAll().where('claim_token', '=', token).executeTakeFirst();

  app.get('/c/:token', async (c) => {
    const core = c.get('core');
    const row = await load(core, c.req.param('token'));
    c.header('Cache-Control', 'no-store');
    if (!row) return c.html(NOT_FOUND, 404);
    const p = renderPayout(row);
    const amount = `${esc(p.destination_amount)} ${esc(p.destination_currency)}`;
    const sandbox = row.environment === 'sandbox';
    if (row.status !== 'awaiting_claim') {
      const text =
        row.status === 'failed' && row.failure_code === 'claim_expired'
          ? 'This claim link expired; the funds went back to the sender.'
          : row.status === 'canceled'
            ? 'The sender canceled this payment.'
            : `This payment was claimed${row.claim_method ? ` by ${esc(METHOD_TEXT[row.claim_method] ?? row.claim_method)}` : ''}. Status: ${esc(row.status)}.`;
      return c.html(page('Payment', `<h1>Payment of ${amount}</h1><p>${text}</p>`, sandbox), 200);
    }
    const message = row.message ? `<blockquote>${esc(row.message)}</blockquote>` : '';
    const expires = row.claim_expires_at ? `<p>Claim before ${esc(row.claim_expires_at.toISOString().slice(0, 10))}.</p>` : '';
    const token = esc(encodeURIComponent(c.req.param('token')));
    if (!row.claim_started_at) {
      const cancelling = row.cancel_requested_at ? '<p>The sender is cancelling this payment.</p>' : '';
      return c.html(
        page(
          'You have money to claim',
          `<h1>You have money to claim</h1><p class="amount">${amount}</p>${message}${expires}${cancelling}
<form method="post" action="/c/${token}/start"><button type="submit" id="start">Claim this payment</button></form>`,
          sandbox,
        ),
        200,
      );
    }
    const buttons = CLAIM_METHODS.map(
      (m) => `<button name="method" value="${m}" type="submit">${esc(METHOD_TEXT[m] ?? m)}</button>`,
    ).join('');
    return c.html(
      page(
        'You have money to claim',
        `<h1>You have money to claim</h1><p class="amount">${amount}</p>${message}${expires}
<form method="post" action="/c/${token}"><p>Choose how to receive it:</p>${buttons}</form>`,
        sandbox,
      ),
      200,
    );
  });

  app.post('/c/:token/start', async (c) => {
    const token = c.req.param('token');
    const row = await startClaim(c.get('core'), token);
    if (!row) return c.html(NOT_FOUND, 404);
    return c.redirect(`/c/${encodeURIComponent(token)}`, 303);
  });

  app.post('/c/:token', async (c) => {
    const core = c.get('core');
    const token = c.req.param('token');
    const row = await load(core, token);
    if (!row) return c.html(NOT_FOUND, 404);
    const form = await c.req.parseBody();
    const method = String(form.method ?? '');
    if (!(CLAIM_METHODS as readonly string[]).includes(method)) {
      return c.html(page('Choose a method', '<h1>Choose a payout method</h1><p>Go back and pick one of the options.</p>', row.environment === 'sandbox'), 400);
    }
    const caller = { businessId: row.business_id, environment: row.environment, keyId: 'claim_page', role: 'member' as const, policy: null };
    const started = row.claim_started_at ? row : await startClaim(core, token);
    if (!started?.claim_started_at) return c.redirect(`/c/${encodeURIComponent(token)}`, 303);
    try {
      await claimPayout(core, caller, row.id, method);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
      // Already claimed, expired or canceled: the GET page explains which.
    }
    return c.redirect(`/c/${encodeURIComponent(token)}`, 303);
  });
}
