/**
 * Identity at claim time on the shared claim page (docs/screening.md "Identity at claim time"): a
 * Surface B claim to a Mexican phone and a Surface C claim to a Brazilian one ask the claimant's
 * identity with the bank account; an invalid CURP or CPF is refused next to its field and changes
 * nothing; a valid claim stores the identity sealed, and claimantIdentity gives the screening subject
 * and whether the claimant's name differs from the account holder's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimantIdentity } from '../../src/core/claim-flow/claimant-identity';
import { createHarness, type Harness } from '../helpers/harness';
import { waitFor } from '../helpers/wait-for';

let h: Harness;
let biz: { id: string; sandbox: string; live: string };
const B = '/sandbox/claim/v1';
const C = '/sandbox/guide/v1';
const CLABE = '032180000118359719';

beforeAll(async () => {
  h = await createHarness();
  biz = await h.business();
  expect((await h.request('POST', `${B}/sandbox/fund`, { key: biz.sandbox, body: { amountUsd: '500.00' } })).status).toBe(200);
}, 120_000);
afterAll(async () => h?.close());

/** A started Surface B claim to `phone`: its id and claim page path. */
async function surfaceBClaim(phone = '+525512345678'): Promise<{ id: string; path: string }> {
  const r = await h.request('POST', `${B}/disbursements`, { key: biz.sandbox, body: { recipientPhone: phone, amountUsd: '10.00' } });
  expect(r.status).toBe(201);
  const url = await waitFor(async () => (await h.request('GET', `${B}/disbursements/${r.body.id}`, { key: biz.sandbox })).body.claimUrl as string | null, 'claim url');
  const path = new URL(url).pathname;
  expect((await h.app.request(`${path}/start`, { method: 'POST' })).status).toBe(303);
  return { id: r.body.id, path };
}

const submit = (path: string, fields: Record<string, string>) =>
  h.app.request(path, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
const status = async (id: string) => (await h.request('GET', `/sandbox/v1/payouts/${id}`, { key: biz.sandbox })).body.status as string;
const identityRow = (id: string) => h.db.selectFrom('claimant_identities').selectAll().where('payout_id', '=', id).executeTakeFirst();

const MX_CLAIM = {
  method: 'bank_transfer',
  route: 'spei_mxn',
  holder_name: 'MARIA LOPEZ GARCIA',
  clabe: CLABE,
  recipient_kind: 'individual',
  full_name: 'María López García',
  date_of_birth: '1990-05-10',
  national_id_kind: 'curp',
  national_id: 'LOGM900510MDFPRR07',
};

describe('claim page: identity on a kycRequired channel', () => {
  it('Surface B (Mexico): asks the identity fields with labels and autocomplete', async () => {
    const { path } = await surfaceBClaim();
    const page = (await h.request('GET', path)).text;
    expect(page).toContain('id="route-spei_mxn"');
    expect(page).toContain('<legend>Your identity</legend>');
    expect(page).toMatch(/<label for="spei_mxn-full_name">Your full name as on your identity document<\/label><input name="full_name"[^>]*autocomplete="name"/);
    expect(page).toMatch(/<input name="date_of_birth"[^>]*type="date"[^>]*autocomplete="bday"/);
    expect(page).toContain('<option value="curp">CURP</option>');
    // The other methods stay buttons; an e-mail recipient (no country) is asked nothing.
    expect(page).toContain('value="mobile_money"');
  });

  it('refuses an invalid CURP with a message next to the field, and changes nothing', async () => {
    const { id, path } = await surfaceBClaim();
    const r = await submit(path, { ...MX_CLAIM, national_id: 'LOGM900510MDFPRR08' });
    expect(r.status).toBe(400);
    expect(r.headers.get('Cache-Control')).toBe('no-store');
    const html = await r.text();
    expect(html).toContain('<p class="error" id="spei_mxn-national_id-error">This CURP is not valid: check it against your document (its check digit does not match).</p>');
    expect(html).toContain('aria-invalid="true" aria-describedby="spei_mxn-national_id-error"');
    expect(html).toContain(`value="${CLABE}"`); // what was given is kept
    expect(await status(id)).toBe('awaiting_claim');
    expect(await identityRow(id)).toBeUndefined();
    // Without the fields at all: refused too.
    expect((await submit(path, { method: 'bank_transfer' })).status).toBe(422);
    expect(await status(id)).toBe('awaiting_claim');
  });

  it('a matching claimant: identity stored sealed, claimantIdentity gives the subject and no mismatch; the claim goes on', async () => {
    const { id, path } = await surfaceBClaim();
    expect((await submit(path, MX_CLAIM)).status).toBe(303);
    const row = (await identityRow(id))!;
    expect(row).toMatchObject({ channel: 'spei_mxn', full_name: 'María López García', holder_name: 'MARIA LOPEZ GARCIA', name_match: true, national_id_kind: 'curp' });
    expect(row.national_id).toMatch(/^enc:v1:/);
    expect(row.date_of_birth).toMatch(/^enc:v1:/);
    expect(JSON.stringify(row)).not.toContain('LOGM900510MDFPRR07');
    expect(await claimantIdentity(h.core, id)).toEqual({
      subject: { name: 'María López García', kind: 'individual', dateOfBirth: '1990-05-10', country: 'MX', identifiers: [{ type: 'curp', value: 'LOGM900510MDFPRR07' }] },
      nameMismatch: null,
    });
    // Screened clear (the sandbox list) with matching names: the payout is paid, no case opened.
    await waitFor(async () => (await status(id)) === 'succeeded', 'the payout paid');
    expect(await h.db.selectFrom('screening_cases').select('id').where('subject_id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it('a claimant whose name is not the account holder\'s is held for review: the payout stays claimed with a name_mismatch case', async () => {
    const { id, path } = await surfaceBClaim();
    expect((await submit(path, { ...MX_CLAIM, holder_name: 'JUAN PEREZ RUIZ' })).status).toBe(303);
    expect((await claimantIdentity(h.core, id))?.nameMismatch).toEqual({ claimantName: 'María López García', holderName: 'JUAN PEREZ RUIZ' });
    expect(await claimantIdentity(h.core, 'po_none')).toBeNull();
    const c = await waitFor(() => h.db.selectFrom('screening_cases').selectAll().where('subject_id', '=', id).executeTakeFirst(), 'the review case');
    expect(c).toMatchObject({ kind: 'name_mismatch', status: 'open' });
    await new Promise((r) => setTimeout(r, 500));
    expect(await status(id)).toBe('claimed');
    expect(await h.db.selectFrom('payout_attempts').select('number').where('payout_id', '=', id).executeTakeFirst()).toBeUndefined();
  });

  it('a held claim (claimed, identity collected) shows "we are checking your details" with the id masked', async () => {
    const { id, path } = await surfaceBClaim();
    expect((await submit(path, { ...MX_CLAIM, holder_name: 'JUAN PEREZ RUIZ' })).status).toBe(303);
    await waitFor(() => h.db.selectFrom('screening_cases').select('id').where('subject_id', '=', id).executeTakeFirst(), 'the review case');
    expect(await status(id)).toBe('claimed');
    const held = (await h.request('GET', path)).text;
    expect(held).toContain('We are checking your details; you will hear from us.');
    expect(held).toContain('CURP: ••••07');
    expect(held).not.toContain('LOGM900510MDFPRR07');
    expect(held).not.toContain('<form');
  });

  it('Surface C (Brazil): a CPF with a wrong check digit is refused; a valid one is taken', async () => {
    const rid = await h.request('POST', `${C}/recipients`, { key: biz.sandbox, body: { phone_number: '+5511987654321' } });
    expect(rid.status).toBe(201);
    const p = await h.request('POST', `${C}/payouts`, { key: biz.sandbox, body: { recipient_id: rid.body.id, amount: '10', currency: 'USD', delivery_channel: 'sms', destination: '+5511987654321' } });
    expect(p.status).toBe(201);
    const url = await waitFor(async () => (await h.request('GET', `${C}/payouts/${p.body.id}`, { key: biz.sandbox })).body.claim_url as string | null, 'claim url');
    const path = new URL(url).pathname;
    await h.app.request(`${path}/start`, { method: 'POST' });
    expect((await h.request('GET', path)).text).toContain('<option value="cpf">CPF</option>');
    const claim = {
      method: 'bank_transfer',
      route: 'pix_brl',
      holder_name: 'Joao da Silva',
      pix_key: 'joao@example.com',
      tax_id: '52998224725',
      recipient_kind: 'individual',
      full_name: 'João da Silva',
      date_of_birth: '1985-02-01',
      national_id_kind: 'cpf',
    };
    const bad = await submit(path, { ...claim, national_id: '529.982.247-24' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('This CPF is not valid');
    expect(await identityRow(p.body.id)).toBeUndefined();
    expect((await submit(path, { ...claim, national_id: '529.982.247-25' })).status).toBe(303);
    expect((await claimantIdentity(h.core, p.body.id))?.subject).toMatchObject({ country: 'BR', identifiers: [{ type: 'cpf', value: '52998224725' }] });
    expect((await claimantIdentity(h.core, p.body.id))?.nameMismatch).toBeNull();
  });
});
