/** Identity at claim time (docs/screening.md "Identity at claim time"): CURP and CPF by check digit, the name match, the catalog's identity fields. */
import { describe, expect, it } from 'vitest';
import { asksIdentity, namesMatch, validateClaimantIdentity } from '../../src/core/claim-flow/claimant-identity';
import { findChannel, requirementsFor } from '../../src/domain/channels';
import { ApiError } from '../../src/domain/errors';

const spei = findChannel('spei_mxn')!;
const pix = findChannel('pix_brl')!;
const MX = { full_name: 'María López García', date_of_birth: '1990-05-10', national_id_kind: 'curp', national_id: 'LOGM900510MDFPRR07' };
const BR = { full_name: 'João da Silva', date_of_birth: '1985-02-01', national_id_kind: 'cpf', national_id: '529.982.247-25' };

function refusal(fn: () => unknown): { param: string | undefined; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { param: err.param ?? undefined, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('the catalog names the identity fields', () => {
  it('spei_mxn asks a CURP, pix_brl a CPF; both kycRequired; ach_usd asks none', () => {
    expect(requirementsFor(spei).identityFields?.map((f) => f.name)).toEqual(['full_name', 'date_of_birth', 'national_id_kind', 'national_id']);
    expect(requirementsFor(spei).identityFields?.find((f) => f.name === 'national_id_kind')?.values).toEqual(['curp']);
    expect(requirementsFor(pix).identityFields?.find((f) => f.name === 'national_id_kind')?.values).toEqual(['cpf']);
    expect([asksIdentity(spei), asksIdentity(pix), asksIdentity(findChannel('ach_usd')!)]).toEqual([true, true, false]);
    // Identity fields are not recipient fields: the spec's Mexican requirements stay as they are.
    expect(requirementsFor(spei).fields.map((f) => f.name)).toEqual(['holder_name', 'clabe', 'recipient_kind']);
  });
});

describe('validateClaimantIdentity', () => {
  it('accepts a CURP whose check digit matches, upper-casing it', () => {
    expect(validateClaimantIdentity(spei, { ...MX, national_id: ' logm900510mdfprr07 ' })).toEqual({
      fullName: 'María López García',
      dateOfBirth: '1990-05-10',
      nationalIdKind: 'curp',
      nationalId: 'LOGM900510MDFPRR07',
    });
  });

  it('refuses a CURP with a wrong check digit, naming the field', () => {
    expect(refusal(() => validateClaimantIdentity(spei, { ...MX, national_id: 'LOGM900510MDFPRR08' }))).toEqual({
      param: 'national_id',
      message: 'This CURP is not valid: check it against your document (its check digit does not match).',
    });
  });

  it('refuses a valid CURP for another date of birth', () => {
    expect(refusal(() => validateClaimantIdentity(spei, { ...MX, date_of_birth: '1990-05-11' })).message).toMatch(/another date of birth/);
  });

  it('accepts CPF 529.982.247-25 (stored without separators) and refuses 529.982.247-24', () => {
    expect(validateClaimantIdentity(pix, BR).nationalId).toBe('52998224725');
    expect(refusal(() => validateClaimantIdentity(pix, { ...BR, national_id: '529.982.247-24' }))).toEqual({
      param: 'national_id',
      message: 'This CPF is not valid: check it against your document (its check digit does not match).',
    });
    expect(refusal(() => validateClaimantIdentity(pix, { ...BR, national_id: '111.111.111-11' })).param).toBe('national_id');
  });

  it('refuses a kind the channel does not take, a one-word name, an impossible or future date', () => {
    expect(refusal(() => validateClaimantIdentity(spei, { ...MX, national_id_kind: 'cpf' })).param).toBe('national_id_kind');
    expect(refusal(() => validateClaimantIdentity(spei, { ...MX, full_name: 'María' })).param).toBe('full_name');
    expect(refusal(() => validateClaimantIdentity(spei, { ...MX, date_of_birth: '1990-02-30' })).param).toBe('date_of_birth');
    expect(refusal(() => validateClaimantIdentity(spei, { ...MX, date_of_birth: '2990-05-10' }, new Date('2026-11-29'))).param).toBe('date_of_birth');
  });
});

describe('namesMatch (normalised tokens, any order, or the shorter name within the longer)', () => {
  it.each([
    ['María López García', 'MARIA LOPEZ GARCIA', true],
    ['María López García', 'LOPEZ GARCIA, MARIA', true],
    ['María López', 'María López García', true],
    ['María de la Luz Pérez', 'Maria Luz Perez', true],
    ['María López García', 'Juan López García', false],
    ['María López García', 'Maria Lopes Garcia', false],
    ['María López', 'López', false],
  ])('%s vs %s -> %s', (a, b, want) => {
    expect(namesMatch(a, b)).toBe(want);
  });
});
