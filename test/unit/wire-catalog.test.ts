import { describe, expect, it } from 'vitest';
import { type ChannelListing, channelLimits, findChannel, listedFee, requirementsFor } from '../../src/domain/channels';
import { receivability } from '../../src/domain/recipients';
import { renderChannel, renderChannelRequirements } from '../../src/wire/surface-a/channels';
import { renderReceivability } from '../../src/wire/surface-a/recipients';

const spei = findChannel('spei_mxn')!;

describe('Surface A catalog renderers (src/wire/surface-a): domain objects to the wire, key order included', () => {
  it('renders a ChannelListing as spec "Channel": snake_case, limits as USDC Amounts', () => {
    const listing: ChannelListing = {
      id: spei.id,
      status: 'live',
      statusReason: null,
      country: spei.country,
      countries: ['MX'],
      currency: spei.currency,
      rail: spei.rail,
      recipientType: spei.recipientType,
      arrival: spei.arrival,
      limits: channelLimits(spei),
      fee: listedFee(spei),
    };
    expect(listing.limits).toEqual({ min: 1_000_000n, max: 50_000_000_000n, currency: 'USDC' });
    expect(JSON.stringify(renderChannel(listing))).toBe(
      '{"id":"spei_mxn","status":"live","status_reason":null,"country":"MX","countries":["MX"],"currency":"MXN","rail":"spei",' +
        '"recipient_type":"bank_account","arrival":{"min":"PT1M","max":"PT30M"},' +
        '"limits":{"min":"1.00","max":"50000.00","currency":"USDC"},"fee":{"percent":"1.15","flat":"0.25","currency":"USDC"}}',
    );
  });

  it('renders ChannelRequirements as spec "ChannelRequirements", without the internal check', () => {
    expect(JSON.stringify(renderChannelRequirements(requirementsFor(spei)))).toBe(
      '{"channel":"spei_mxn","recipient_type":"bank_account","fields":[' +
        '{"name":"holder_name","type":"string","required":true,"description":"Full name of the account holder as the bank knows it"},' +
        '{"name":"clabe","type":"string","required":true,"pattern":"^[0-9]{18}$","description":"18-digit CLABE (check digit validated)"},' +
        '{"name":"recipient_kind","type":"enum","required":true,"values":["individual","business"]}],' +
        '"limits":{"min":"1.00","max":"50000.00","currency":"USDC"},' +
        // Extension: the claim page's identity fields (docs/screening.md "Identity at claim time").
        '"identity_fields":[{"name":"full_name","type":"string","required":true,"description":"Your full name as on your identity document"},' +
        '{"name":"date_of_birth","type":"date","required":true,"description":"Date of birth, YYYY-MM-DD"},' +
        '{"name":"national_id_kind","type":"enum","required":true,"values":["curp"],"description":"National identifier"},' +
        '{"name":"national_id","type":"string","required":true,"pattern":"^[A-Z][AEIOUX][A-Z]{2}[0-9]{6}[HMX][A-Z]{5}[A-Z0-9][0-9]$",' +
        '"description":"CURP, 18 characters (check digit validated)"}]}',
    );
  });

  it('renders Receivability with kyc_required_for', () => {
    const r = receivability({ type: 'phone', number: '+525512345678' });
    expect(r.kycRequiredFor).toEqual(['spei_bank']);
    expect(JSON.stringify(renderReceivability(r))).toBe(
      '{"receivable":true,"country":"MX","methods":["spei_bank","service_wallet"],"kyc_required_for":["spei_bank"]}',
    );
  });
});
