/**
 * Contact recipients core (src/core/contacts): the person recipient shared by Surface B
 * `/recipients` and Surface C `POST /recipients`. Runs on in-memory PGlite without Temporal
 * (TEST_NO_INFRA=1 works).
 */
import type { Client } from '@temporalio/client';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config';
import {
  createContactRecipient,
  getContactRecipient,
  getContactRecipientByExternalId,
  getContactRecipientByPhone,
  listContactRecipients,
} from '../../src/core/contacts';
import type { Caller, Core } from '../../src/core/context';
import { createRecipient, getRecipient } from '../../src/core/recipients';
import { migrate, openDb } from '../../src/db/connection';
import type { Db } from '../../src/db/schema';
import { sandboxAdapters } from '../../src/sandbox/adapters';
import { createScreeningServices } from '../../src/core/screening/service';

let db: Db;
let core: Core;
const caller = (businessId: string, environment: 'sandbox' | 'live' = 'sandbox'): Caller => ({
  businessId,
  environment,
  keyId: 'key_test',
  role: 'owner',
  policy: null,
});
const A = caller('biz_a');
const B = caller('biz_b');
const ALive = caller('biz_a', 'live');

beforeAll(async () => {
  db = await openDb({ memory: true });
  await migrate(db);
  core = { db, temporal: {} as Client, config: loadConfig({ LOG_LEVEL: 'silent' }), log: pino({ level: 'silent' }), now: () => new Date(), sandbox: sandboxAdapters(), screening: createScreeningServices(db, {}) };
});
afterAll(async () => db?.destroy());

async function apiError(p: Promise<unknown>) {
  try {
    await p;
  } catch (err) {
    const e = err as { status: number; code: string; param: string | null };
    return { status: e.status, code: e.code, param: e.param };
  }
  throw new Error('expected an error');
}

describe('contact recipients: happy', () => {
  it('creates a phone recipient: country from the number, stored as a core phone recipient Surface A can read', async () => {
    const r = await createContactRecipient(core, A, { phone: ' +525512345678 ', name: 'Ana López', externalId: 'cust_1' });
    expect(r).toMatchObject({ type: 'phone', phone: '+525512345678', email: null, name: 'Ana López', externalId: 'cust_1', country: 'MX' });
    expect(r.id).toMatch(/^rcp_/);
    const asA = await getRecipient(core, A, r.id);
    expect(asA).toMatchObject({ type: 'phone', details: { number: '+525512345678' }, status: 'ready', channels: ['claim_link'] });
  });

  it('creates an e-mail-only recipient (type email) and one with both phone and e-mail (Surface C shape)', async () => {
    const e = await createContactRecipient(core, A, { email: 'Bob@Example.com', country: 'us' });
    expect(e).toMatchObject({ type: 'email', phone: null, email: 'Bob@Example.com', country: 'US' });
    const both = await createContactRecipient(core, A, { phone: '+14155552671', email: 'c@example.com', country: 'US' });
    expect(both).toMatchObject({ type: 'phone', phone: '+14155552671', email: 'c@example.com', country: 'US' });
  });

  it('gets by id, by phone (newest wins) and by externalId', async () => {
    const first = await createContactRecipient(core, A, { phone: '+525511110000' });
    const second = await createContactRecipient(core, A, { phone: '+525511110000', externalId: 'cust_2' });
    expect((await getContactRecipient(core, A, first.id)).id).toBe(first.id);
    expect((await getContactRecipientByPhone(core, A, '+525511110000')).id).toBe(second.id);
    expect((await getContactRecipientByExternalId(core, A, 'cust_2')).id).toBe(second.id);
  });

  it('lists newest first with a cursor, without gaps or repeats, and leaves out Surface A bank recipients', async () => {
    const biz = caller('biz_list');
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await createContactRecipient(core, biz, { email: `p${i}@example.com` })).id);
    await createRecipient(core, biz, { type: 'bank_account', country: 'MX', details: { holder_name: 'X', clabe: '002010077777777771' } });
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await listContactRecipients(core, biz, { limit: 2, after });
      seen.push(...page.data.map((r) => r.id));
      if (!page.nextCursor) break;
      after = page.nextCursor;
    }
    // Newest first is id order (ids are time-ordered; two made in the same millisecond have no
    // order between them), so compare with the ids sorted, not with the creation order.
    expect(seen).toEqual([...made].sort().reverse());
  });
});

describe('contact recipients: errors', () => {
  it('refuses a phone not in E.164 with invalid_phone (param phone), and changes nothing', async () => {
    const biz = caller('biz_err');
    expect(await apiError(createContactRecipient(core, biz, { phone: '5512345678' }))).toEqual({ status: 400, code: 'invalid_phone', param: 'phone' });
    expect(await apiError(createContactRecipient(core, biz, { phone: '+1555' }))).toEqual({ status: 400, code: 'invalid_phone', param: 'phone' });
    expect((await listContactRecipients(core, biz, { limit: 10 })).data).toEqual([]);
  });

  it('refuses neither phone nor e-mail, a bad e-mail, a bad country and a country that is not the phone\'s', async () => {
    expect(await apiError(createContactRecipient(core, A, {}))).toEqual({ status: 400, code: 'validation_error', param: 'phone' });
    expect(await apiError(createContactRecipient(core, A, { email: 'not-an-email' }))).toEqual({ status: 400, code: 'validation_error', param: 'email' });
    expect(await apiError(createContactRecipient(core, A, { email: 'a@b.co', country: 'MEX' }))).toEqual({ status: 400, code: 'validation_error', param: 'country' });
    expect(await apiError(createContactRecipient(core, A, { phone: '+525512345678', country: 'US' }))).toEqual({ status: 400, code: 'validation_error', param: 'country' });
  });

  it('externalId is unique per business and environment (409 external_id_taken), free in another business or environment', async () => {
    await createContactRecipient(core, A, { email: 'x@example.com', externalId: 'dup' });
    expect(await apiError(createContactRecipient(core, A, { email: 'y@example.com', externalId: 'dup' }))).toEqual({
      status: 409,
      code: 'external_id_taken',
      param: 'externalId',
    });
    await expect(createContactRecipient(core, B, { email: 'y@example.com', externalId: 'dup' })).resolves.toMatchObject({ externalId: 'dup' });
    await expect(createContactRecipient(core, ALive, { email: 'y@example.com', externalId: 'dup' })).resolves.toMatchObject({ externalId: 'dup' });
  });

  it('lookups: 400 invalid_phone for a non-E.164 phone, 404 for unknown phone / externalId / id, 400 for a foreign cursor', async () => {
    expect(await apiError(getContactRecipientByPhone(core, A, '0044 20'))).toEqual({ status: 400, code: 'invalid_phone', param: 'phone' });
    expect(await apiError(getContactRecipientByPhone(core, A, '+447911123456'))).toEqual({ status: 404, code: 'not_found', param: 'phone' });
    expect(await apiError(getContactRecipientByExternalId(core, A, 'nope'))).toEqual({ status: 404, code: 'not_found', param: 'externalId' });
    expect(await apiError(getContactRecipient(core, A, 'rcp_nope'))).toEqual({ status: 404, code: 'not_found', param: 'id' });
    expect(await apiError(listContactRecipients(core, A, { limit: 5, after: 'garbage' }))).toEqual({ status: 400, code: 'validation_error', param: 'after' });
  });
});

describe('contact recipients: security (tenant and environment scope)', () => {
  it("another business's or environment's recipient is a 404 by id, phone and externalId, and never listed", async () => {
    const r = await createContactRecipient(core, A, { phone: '+525598765432', externalId: 'scoped' });
    for (const other of [B, ALive]) {
      expect((await apiError(getContactRecipient(core, other, r.id))).status).toBe(404);
      expect((await apiError(getContactRecipientByPhone(core, other, '+525598765432'))).status).toBe(404);
      expect((await apiError(getContactRecipientByExternalId(core, other, 'scoped'))).status).toBe(404);
      expect((await listContactRecipients(core, other, { limit: 200 })).data.map((x) => x.id)).not.toContain(r.id);
    }
  });

  it('a Surface A saved recipient is not a contact recipient (404 by id)', async () => {
    const bank = await createRecipient(core, A, { type: 'bank_account', country: 'MX', details: { holder_name: 'X', clabe: '002010077777777771' } });
    expect((await apiError(getContactRecipient(core, A, bank.id))).status).toBe(404);
  });
});
