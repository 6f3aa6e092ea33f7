/**
 * The public claim page of a claim-link payout (docs/surface-b.md, docs/notifications.md "When
 * claim_link is live"): `GET /c/:token` shows it, `POST /c/:token/start` starts the claim,
 * `POST /c/:token` claims with a method (live: a route and its recipient fields; on a channel that
 * asks it, the claimant's identity: docs/screening.md "Identity at claim time"). A GET never
 * changes anything (messaging apps fetch links for previews). The random token is the credential.
 */
import type { Hono } from 'hono';
import { asksIdentity, findClaimLink, maskedClaimantIdentity, sandboxIdentityChannel, startClaim, submitClaimDetails } from '../../core/claim-flow';
import type { Caller, Core } from '../../core/context';
import { CLAIM_METHODS, claimPayout } from '../../core/payouts';
import { renderPayout } from '../../wire/surface-a/payouts';
import { offeredClaimRoutes } from '../../core/payouts/claim-destinations';
import { type ChannelDefinition, type PublicRequirementField, requirementsFor } from '../../domain/channels';
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

/** Browser autofill tokens of the fields that have one (HTML "autocomplete"). */
const AUTOCOMPLETE: Record<string, string> = { holder_name: 'name', full_name: 'name', date_of_birth: 'bday', national_id: 'off' };
const INPUT_TYPE: Record<string, string> = { date: 'date', email: 'email', phone: 'tel' };

/** A field's error shown next to it: `field` is the field's wire name. */
interface FieldError {
  field: string;
  message: string;
}

/** One labelled control of `formId`'s field `f`, with `value` and, when it is the erroneous one, its message. */
function fieldControl(formId: string, f: PublicRequirementField, value: string, error: FieldError | undefined): string {
  const id = esc(`${formId}-${f.name}`);
  const bad = error?.field === f.name;
  const aria = bad ? ` aria-invalid="true" aria-describedby="${id}-error"` : '';
  const auto = AUTOCOMPLETE[f.name] ? ` autocomplete="${AUTOCOMPLETE[f.name]}"` : '';
  const control = f.values
    ? `<select name="${esc(f.name)}" id="${id}"${f.required ? ' required' : ''}${aria}>${f.required ? '' : '<option value=""></option>'}${f.values.map((v) => `<option value="${esc(v)}"${v === value ? ' selected' : ''}>${esc(f.name === 'national_id_kind' ? v.toUpperCase() : v)}</option>`).join('')}</select>`
    : `<input name="${esc(f.name)}" id="${id}" type="${INPUT_TYPE[f.type] ?? 'text'}" value="${esc(value)}"${f.required ? ' required' : ''}${auto}${f.name === 'national_id' ? ' spellcheck="false" autocapitalize="characters"' : ''}${aria}>`;
  const message = bad ? `<p class="error" id="${id}-error">${esc(error.message)}</p>` : '';
  return `<label for="${id}">${esc(f.description ?? f.name)}${f.required ? '' : ' (optional)'}</label>${control}${message}`;
}

/** The account fields of `c`, then its identity fields when it asks them (docs/screening.md "Identity at claim time"). */
function channelInputs(c: ChannelDefinition, given: Record<string, string>, error?: FieldError): string {
  const r = requirementsFor(c);
  const inputs = r.fields.map((f) => fieldControl(c.id, f, given[f.name] ?? '', error)).join('');
  if (!asksIdentity(c) || !r.identityFields) return inputs;
  return `${inputs}<fieldset id="${esc(c.id)}-identity"><legend>Your identity</legend>
<p>The law asks us to check who receives this payment. Give your own details; the account holder's name must be yours.</p>${r.identityFields.map((f) => fieldControl(c.id, f, given[f.name] ?? '', error)).join('')}</fieldset>`;
}

/** One form per live route, with the route's recipient fields (a value given before is kept after an error). */
function routeForms(token: string, routes: readonly ChannelDefinition[], given: Record<string, string> = {}, error?: FieldError & { route: string }): string {
  if (routes.length === 0) return '<p id="no-routes">No payout method is available right now. Please come back later; the link stays valid until the date above.</p>';
  return routes
    .map(
      (c) => `<form method="post" action="/c/${token}" class="route" id="route-${esc(c.id)}"><h2>${esc(routeTitle(c))}</h2>
<input type="hidden" name="method" value="bank_transfer"><input type="hidden" name="route" value="${esc(c.id)}">${channelInputs(c, given, error?.route === c.id ? error : undefined)}
<button type="submit">Receive it in this account</button></form>`,
    )
    .join('');
}

/** The sandbox's method choice: a bank transfer on a channel asking identity is a form with its fields, the other methods buttons. */
function sandboxChoices(token: string, identityChannel: ChannelDefinition | null, given: Record<string, string> = {}, error?: FieldError): string {
  const others = identityChannel ? CLAIM_METHODS.filter((m) => m !== 'bank_transfer') : CLAIM_METHODS;
  const buttons = others.map((m) => `<button name="method" value="${m}" type="submit">${esc(METHOD_TEXT[m] ?? m)}</button>`).join('');
  const bank = identityChannel
    ? `<form method="post" action="/c/${token}" class="route" id="route-${esc(identityChannel.id)}"><h2>${esc(routeTitle(identityChannel))}</h2>
<input type="hidden" name="method" value="bank_transfer"><input type="hidden" name="route" value="${esc(identityChannel.id)}">${channelInputs(identityChannel, given, error)}
<button type="submit">Receive it in this account</button></form><p>Or choose another way:</p>`
    : '<p>Choose how to receive it:</p>';
  return identityChannel ? `${bank}<form method="post" action="/c/${token}">${buttons}</form>` : `<form method="post" action="/c/${token}">${bank}${buttons}</form>`;
}

/** The form field an ApiError's param names (`recipient.clabe` -> `clabe`). */
const errorField = (err: ApiError): FieldError => ({ field: (err.param ?? '').replace(/^recipient\./, ''), message: err.message });

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
      const masked = payout.status === 'claimed' ? await maskedClaimantIdentity(core, payout.id) : null;
      if (masked) {
        const held = `<h1>Payment of ${amount}</h1><p id="checking">We are checking your details; you will hear from us. There is nothing more to do now.</p>
<p>${esc(masked.nationalIdKind.toUpperCase())}: ${esc(masked.nationalId)}</p>`;
        return c.html(page('We are checking your details', held, sandbox), 200);
      }
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
    return c.html(
      page(
        'You have money to claim',
        `<h1>You have money to claim</h1><p class="amount">${amount}</p>${message}${expires}
${sandboxChoices(token, sandboxIdentityChannel(link))}`,
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
    if (link.payout.status === 'awaiting_claim') {
      const live = link.environment === 'live';
      const routes = live ? await liveMethods(core, link) : [];
      const route = String(form.route ?? '');
      const fields = Object.fromEntries(Object.entries(form).filter((e): e is [string, string] => typeof e[1] === 'string' && e[0] !== 'method' && e[0] !== 'route'));
      try {
        await submitClaimDetails(core, link, method, route, fields, routes);
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        const p = renderPayout(link.payout);
        const safeToken = esc(encodeURIComponent(token));
        const field = errorField(err);
        const choices = live ? routeForms(safeToken, routes, fields, { ...field, route }) : sandboxChoices(safeToken, sandboxIdentityChannel(link), fields, field);
        const body = `<h1>You have money to claim</h1><p class="amount">${esc(p.destination_amount)} ${esc(p.destination_currency)}</p>
<p class="error" id="error" role="alert">${esc(err.message)}${field.field ? ` (${esc(field.field)})` : ''}</p>${choices}`;
        c.header('Cache-Control', 'no-store');
        return c.html(page('Check your details', body, !live), err.status as 400 | 422);
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
