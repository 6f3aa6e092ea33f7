/**
 * The sandbox card checkout page of a Surface B card top-up (`POST /funding/card`): `action` `pay`
 * credits the balance, `cancel` cancels; then 303 to successUrl or cancelUrl. The token is the credential.
 */
import type { Hono } from 'hono';
import { findCardTopupByToken, finishCardTopup } from '../../core/claim-flow';
import { formatAmount } from '../../domain/money';
import type { AppEnv } from '../types';

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

const page = (title: string, body: string) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${esc(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem}.amount{font-size:2rem;font-weight:600}
.banner{background:#fff4ce;padding:.4rem .8rem;border-radius:.3rem}button{display:block;width:100%;margin:.5rem 0;padding:.8rem;font-size:1rem}</style></head>
<body><p class="banner">Sandbox checkout: no card is charged.</p>${body}</body></html>`;

const NOT_FOUND = page('Checkout not found', '<h1>Checkout not found</h1>');

/** Registers `GET /checkout/:token` and `POST /checkout/:token`. */
export function registerCardCheckoutPage(app: Hono<AppEnv>): void {
  app.get('/checkout/:token', async (c) => {
    c.header('Cache-Control', 'no-store');
    const row = await findCardTopupByToken(c.get('core'), c.req.param('token'));
    if (!row) return c.html(NOT_FOUND, 404);
    const amount = `${formatAmount(row.amount, 'USD')} USD`;
    if (row.status !== 'pending') return c.html(page('Checkout', `<h1>Top-up of ${esc(amount)}</h1><p>This checkout is ${esc(row.status)}.</p>`));
    const token = esc(encodeURIComponent(c.req.param('token')));
    return c.html(
      page(
        'Top up your balance',
        `<h1>Top up your balance</h1><p class="amount">${esc(amount)}</p>
<form method="post" action="/checkout/${token}"><button name="action" value="pay" id="pay" type="submit">Pay ${esc(amount)}</button>
<button name="action" value="cancel" id="cancel" type="submit">Cancel</button></form>`,
      ),
    );
  });

  app.post('/checkout/:token', async (c) => {
    const form = await c.req.parseBody();
    const action = form.action === 'pay' ? 'pay' : form.action === 'cancel' ? 'cancel' : null;
    const token = c.req.param('token');
    if (!action) return c.html(page('Checkout', '<h1>Choose Pay or Cancel</h1>'), 400);
    const row = await finishCardTopup(c.get('core'), token, action);
    if (!row) return c.html(NOT_FOUND, 404);
    return c.redirect(row.status === 'completed' ? row.success_url : row.cancel_url, 303);
  });
}
