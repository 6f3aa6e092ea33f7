/**
 * The public claim page of a claim-link payout (docs/surface-b.md, docs/notifications.md "When
 * claim_link is live"): `GET /c/:token` shows it, `POST /c/:token/start` starts the claim,
 * `POST /c/:token` claims with a method (live: a route and its recipient fields). A GET never
 * changes anything (messaging apps fetch links for previews). The random token is the credential.
 */
import type { Hono } from 'hono';
import { findClaimLink, startClaim } from '../../core/claim-flow';
import type { Caller, Core } from '../../core/context';
import { CLAIM_METHODS, claimPayout } from '../../core/payouts';
import { renderPayout } from '../../wire/surface-a/payouts';
import { chooseClaimRoute, offeredClaimRoutes } from '../../core/payouts/claim-destinations';
import { type ChannelDefinition, requirementsFor } from '../../domain/channels';
import type { ClaimLink } from '../../domain/claim-links';
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
blockquote{border-left:3px solid #ccc;margin:1rem 0;padding-left:.8rem;color:#444}
label{display:block;margin:.6rem 0 .2rem}input,select{width:100%;padding:.5rem;font-size:1rem;box-sizing:border-box}
.route{border:1px solid #ddd;border-radius:.4rem;padding:.2rem 1rem 1rem;margin:1rem 0}.error{color:#a00}</style></head>
<body>${banner}${body}</body></html>`;
}

/** Made at the first live route shown, not at start: it loads ICU's region names (docs/operations.md "Idle cost"). */
let countryNames: Intl.DisplayNames | undefined;

/** A live route's heading: the country and currency of the account it pays to. */
function routeTitle(c: ChannelDefinition): string {
  const where = c.country && c.country.length === 2 ? (countryNames ??= new Intl.DisplayNames(['en'], { type: 'region' })).of(c.country) ?? c.country : c.country === 'EU' ? 'the euro area' : null;
  return `Bank account${where ? ` in ${where}` : ''} (${c.currency})`;
}

/** One form per live route, with the route's recipient fields (a value given before is kept after an error). */
function routeForms(token: string, routes: readonly ChannelDefinition[], given: Record<string, string> = {}): string {
  if (routes.length === 0) return '<p id="no-routes">No payout method is available right now. Please come back later; the link stays valid until the date above.</p>';
  return routes
    .map((c) => {
      const inputs = requirementsFor(c)
        .fields.map((f) => {
          const label = esc(f.description ?? f.name);
          const value = given[f.name] ?? '';
          const control = f.values
            ? `<select name="${esc(f.name)}" id="${esc(`${c.id}-${f.name}`)}"${f.required ? ' required' : ''}>${f.required ? '' : '<option value=""></option>'}${f.values.map((v) => `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(v)}</option>`).join('')}</select>`
            : `<input name="${esc(f.name)}" id="${esc(`${c.id}-${f.name}`)}" value="${esc(value)}"${f.required ? ' required' : ''}>`;
          return `<label for="${esc(`${c.id}-${f.name}`)}">${label}${f.required ? '' : ' (optional)'}</label>${control}`;
        })
        .join('');
      return `<form method="post" action="/c/${token}" class="route" id="route-${esc(c.id)}"><h2>${esc(routeTitle(c))}</h2>
<input type="hidden" name="method" value="bank_transfer"><input type="hidden" name="route" value="${esc(c.id)}">${inputs}
<button type="submit">Receive it in this account</button></form>`;
    })
    .join('');
}

/** The claim page's caller: the payout's business and environment, acting through the link's token. */
const linkCaller = (link: ClaimLink): Caller => ({
  businessId: link.businessId,
  environment: link.environment,
  keyId: 'claim_page',
  role: 'member',
  policy: null,
});

async function liveMethods(core: Core, link: ClaimLink) {
  return offeredClaimRoutes(core, linkCaller(link), link.payout.destination.currency);
}

const NOT_FOUND = page('Claim link not found', '<h1>Claim link not found</h1><p>This link is not valid.</p>', false);

/** Registers `GET /c/:token` and `POST /c/:token` (HTML). */
export function registerClaimPage(app: Hono<AppEnv>): void {
  app.get('/c/:token', async (c) => {
    const core = c.get('core');
    const link = await findClaimLink(core, c.req.param('token'));
    c.header('Cache-Control', 'no-store');
    if (!link) return c.html(NOT_FOUND, 404);
    const payout = link.payout;
    const p = renderPayout(payout);
    const amount = `${esc(p.destination_amount)} ${esc(p.destination_currency)}`;
    const sandbox = link.environment === 'sandbox';
    if (payout.status !== 'awaiting_claim') {
      const method = payout.claim?.method;
      const text =
        payout.status === 'failed' && payout.failure?.code === 'claim_expired'
          ? 'This claim link expired; the funds went back to the sender.'
          : payout.status === 'canceled'
            ? 'The sender canceled this payment.'
            : `This payment was claimed${method ? ` by ${esc(METHOD_TEXT[method] ?? method)}` : ''}. Status: ${esc(payout.status)}.`;
      return c.html(page('Payment', `<h1>Payment of ${amount}</h1><p>${text}</p>`, sandbox), 200);
    }
    const message = payout.message ? `<blockquote>${esc(payout.message)}</blockquote>` : '';
    const expiresAt = payout.claim?.expiresAt;
    const expires = expiresAt ? `<p>Claim before ${esc(expiresAt.toISOString().slice(0, 10))}.</p>` : '';
    const token = esc(encodeURIComponent(c.req.param('token')));
    if (!link.claimStartedAt) {
      const cancelling = link.cancelRequestedAt ? '<p>The sender is cancelling this payment.</p>' : '';
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
    if (!sandbox) {
      const routes = await liveMethods(core, link);
      return c.html(page('You have money to claim', `<h1>You have money to claim</h1><p class="amount">${amount}</p>${message}${expires}
<p>Choose where to receive it:</p>${routeForms(token, routes)}`, false), 200);
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
    const link = await startClaim(c.get('core'), token);
    if (!link) return c.html(NOT_FOUND, 404);
    return c.redirect(`/c/${encodeURIComponent(token)}`, 303);
  });

  app.post('/c/:token', async (c) => {
    const core = c.get('core');
    const token = c.req.param('token');
    const link = await findClaimLink(core, token);
    if (!link) return c.html(NOT_FOUND, 404);
    const form = await c.req.parseBody();
    const method = String(form.method ?? '');
    if (!(CLAIM_METHODS as readonly string[]).includes(method)) {
      return c.html(page('Choose a method', '<h1>Choose a payout method</h1><p>Go back and pick one of the options.</p>', link.environment === 'sandbox'), 400);
    }
    const caller = linkCaller(link);
    const started = link.claimStartedAt ? link : await startClaim(core, token);
    if (!started?.claimStartedAt) return c.redirect(`/c/${encodeURIComponent(token)}`, 303);
    if (link.environment === 'live' && link.payout.status === 'awaiting_claim') {
      const routes = await liveMethods(core, link);
      const fields = Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'method' && e[0] !== 'route'));
      try {
        await chooseClaimRoute(core, link.payout, routes, String(form.route ?? ''), fields);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        const p = renderPayout(link.payout);
        const safeToken = esc(encodeURIComponent(token));
        const body = `<h1>You have money to claim</h1><p class="amount">${esc(p.destination_amount)} ${esc(p.destination_currency)}</p>
<p class="error" id="error" role="alert">${esc(err.message)}${err.param ? ` (${esc(err.param.replace(/^recipient\./, ''))})` : ''}</p>${routeForms(safeToken, routes, fields)}`;
        return c.html(page('Check your details', body, false), err.status as 400 | 422);
      }
    }
    try {
      await claimPayout(core, caller, link.payout.id, method);
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 409)) throw err;
      // Already claimed, expired or canceled: the GET page explains which.
    }
    return c.redirect(`/c/${encodeURIComponent(token)}`, 303);
  });
}
