import { describe, expect, it } from 'vitest';
import { parseCamt054, writeCamt054, type Camt054Input } from '../../src/rails/iso20022/camt054';
import { parsePain001 } from '../../src/rails/iso20022/pain001';
import { parsePain002, writePain002, type Pain002Input } from '../../src/rails/iso20022/pain002';
import { schemaAvailable } from '../../src/rails/iso20022/schemas';
import { validateIso20022 } from '../../src/rails/iso20022/validate';
import { Iso20022ParseError, MAX_ISO20022_BYTES } from '../../src/rails/iso20022/xml';

const NOW = new Date('2026-11-25T07:00:00Z');
const U1 = '3f1c2a4b-5d6e-4f70-8a9b-000000000001';
const U2 = '3f1c2a4b-5d6e-4f70-8a9b-000000000002';

const statusReport: Pain002Input = {
  messageId: 'STS-1',
  createdAt: NOW,
  originalMessageId: 'MSG-1',
  group: { status: 'PART' },
  payments: [
    {
      originalPaymentInformationId: 'PMT-1',
      transactions: [
        { originalEndToEndId: 'E2E-1', uetr: U1, status: 'ACCP' },
        { originalEndToEndId: 'E2E-2', uetr: U2, status: 'RJCT', reasonCode: 'AC01', additionalInfo: 'Incorrect account number' },
      ],
    },
  ],
};

const notification: Camt054Input = {
  messageId: 'NTF-1',
  createdAt: NOW,
  notificationId: 'NTF-1',
  accountIban: 'DE89370400440532013000',
  entries: [
    {
      entryReference: 'B1',
      accountServicerReference: 'BOOK-1',
      creditDebit: 'DBIT',
      status: 'BOOK',
      bookingDate: '2026-11-25T07:00:00.000Z',
      amountMinor: '12345',
      currency: 'EUR',
      originalMessageId: 'MSG-1',
      paymentInformationId: 'PMT-1',
      endToEndId: 'E2E-1',
      uetr: U1,
      creditorName: 'Jose Nunez',
      creditorIban: 'ES9121000418450200051332',
      remittanceInformation: 'Invoice 42',
    },
    {
      creditDebit: 'CRDT',
      status: 'BOOK',
      bookingDate: '2026-11-26',
      amountMinor: '7',
      currency: 'EUR',
      endToEndId: 'E2E-1',
      uetr: U1,
      returnReasonCode: 'AC04',
      debtorName: 'Jose Nunez',
      debtorIban: 'ES9121000418450200051332',
    },
  ],
};

function parseError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(Iso20022ParseError);
    return (e as Error).message;
  }
  throw new Error('expected an Iso20022ParseError');
}

describe('pain.002.001.10', () => {
  it('round-trips a status report: group, payment information and transaction statuses with reasons', () => {
    expect(parsePain002(writePain002(statusReport))).toEqual({
      messageId: 'STS-1',
      createdAt: '2026-11-25T07:00:00Z',
      originalMessageId: 'MSG-1',
      groupStatus: 'PART',
      groupReasonCode: null,
      payments: [
        {
          originalPaymentInformationId: 'PMT-1',
          status: null,
          reasonCode: null,
          transactions: [
            { originalEndToEndId: 'E2E-1', uetr: U1, status: 'ACCP', reasonCode: null, additionalInfo: null },
            { originalEndToEndId: 'E2E-2', uetr: U2, status: 'RJCT', reasonCode: 'AC01', additionalInfo: 'Incorrect account number' },
          ],
        },
      ],
    });
  });

  it('reads a group-level rejection and lets a transaction inherit its payment status', () => {
    const rejected = parsePain002(writePain002({ messageId: 'S2', createdAt: NOW, originalMessageId: 'MSG-9', group: { status: 'RJCT', reasonCode: 'FF01' }, payments: [] }));
    expect(rejected).toMatchObject({ originalMessageId: 'MSG-9', groupStatus: 'RJCT', groupReasonCode: 'FF01', payments: [] });
    const xml = writePain002({
      messageId: 'S3',
      createdAt: NOW,
      originalMessageId: 'MSG-1',
      payments: [{ originalPaymentInformationId: 'PMT-1', status: { status: 'RJCT', reasonCode: 'AM04' }, transactions: [{ originalEndToEndId: 'E2E-1', status: 'RJCT' }] }],
    }).replace(/\s*<TxSts>RJCT<\/TxSts>/, '');
    const parsed = parsePain002(xml);
    expect(parsed.payments[0]).toMatchObject({ status: 'RJCT', reasonCode: 'AM04' });
    expect(parsed.payments[0].transactions[0]).toMatchObject({ originalEndToEndId: 'E2E-1', status: 'RJCT', uetr: null });
  });

  it('accepts a namespace prefix and decodes character references', () => {
    const xml = writePain002(statusReport)
      .replace(/<(\/?)([A-Za-z])/g, '<$1p:$2')
      .replace('<p:Document xmlns=', '<p:Document xmlns:p=')
      .replace('Incorrect account number', 'Wrong &amp; closed &#233;');
    expect(xml).toContain('<p:CstmrPmtStsRpt>');
    const parsed = parsePain002(xml);
    expect(parsed.messageId).toBe('STS-1');
    expect(parsed.payments[0].transactions[1].additionalInfo).toBe('Wrong & closed é');
  });

  it.skipIf(!schemaAvailable('pain.002.001.10'))('the written report validates against the official XSD (when the file is in place)', async () => {
    expect(await validateIso20022(writePain002(statusReport), 'pain.002.001.10')).toEqual({ valid: true, errors: [] });
  });

  it('refuses a missing required element and the wrong namespace', () => {
    const xml = writePain002(statusReport);
    expect(parseError(() => parsePain002(xml.replace(/<OrgnlMsgId>MSG-1<\/OrgnlMsgId>/, '')))).toMatch(/OrgnlGrpInfAndSts\/OrgnlMsgId is missing/);
    expect(parseError(() => parsePain002(xml.replace(/<MsgId>STS-1<\/MsgId>/, '')))).toMatch(/GrpHdr\/MsgId is missing/);
    expect(parseError(() => parsePain002(xml.replace('pain.002.001.10"', 'pain.002.001.03"')))).toMatch(/wrong namespace/);
    expect(parseError(() => parsePain002(writeCamt054(notification)))).toMatch(/wrong namespace/);
    expect(parseError(() => parsePain002('<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.10"><CstmrPmtStsRpt>'))).toMatch(/not well-formed/);
  });
});

describe('camt.054.001.08', () => {
  it('round-trips booked debits and returns, amounts in minor units', async () => {
    const xml = writeCamt054(notification);
    expect(await validateIso20022(xml, 'camt.054.001.08')).toEqual({ valid: true, errors: [] });
    const parsed = parseCamt054(xml);
    expect(parsed).toMatchObject({ messageId: 'NTF-1', createdAt: '2026-11-25T07:00:00Z', accountIban: 'DE89370400440532013000' });
    expect(parsed.entries).toEqual([
      {
        entryReference: 'B1',
        accountServicerReference: 'BOOK-1',
        creditDebit: 'DBIT',
        status: 'BOOK',
        bookingDate: '2026-11-25T07:00:00.000Z',
        amountMinor: '12345',
        currency: 'EUR',
        reversal: false,
        endToEndId: 'E2E-1',
        uetr: U1,
        originalMessageId: 'MSG-1',
        returnReasonCode: null,
        debtorName: null,
        debtorIban: null,
        creditorName: 'Jose Nunez',
        creditorIban: 'ES9121000418450200051332',
        remittanceInformation: 'Invoice 42',
        bankTransactionCode: 'PMNT/ICDT/ESCT',
        additionalEntryInfo: null,
      },
      {
        entryReference: null,
        accountServicerReference: null,
        creditDebit: 'CRDT',
        status: 'BOOK',
        bookingDate: '2026-11-26',
        amountMinor: '7',
        currency: 'EUR',
        reversal: false,
        endToEndId: 'E2E-1',
        uetr: U1,
        originalMessageId: null,
        returnReasonCode: 'AC04',
        debtorName: 'Jose Nunez',
        debtorIban: 'ES9121000418450200051332',
        creditorName: null,
        creditorIban: null,
        remittanceInformation: null,
        bankTransactionCode: 'PMNT/ICDT/RRTN',
        additionalEntryInfo: null,
      },
    ]);
  });

  it('reads a reversal, a pending entry and amounts without decimals', () => {
    const xml = writeCamt054({ ...notification, entries: [{ ...notification.entries[0], status: 'PDNG', reversal: true, amountMinor: '100' }] }).replace('>1.00<', '>1<');
    expect(xml).toContain('<Amt Ccy="EUR">1</Amt>');
    const [entry] = parseCamt054(xml).entries;
    expect(entry).toMatchObject({ status: 'PDNG', reversal: true, amountMinor: '100' });
  });

  it('refuses an amount with more than 2 decimals, a bad CdtDbtInd and a missing header', () => {
    const xml = writeCamt054(notification);
    expect(parseError(() => parseCamt054(xml.replace('<Amt Ccy="EUR">123.45</Amt>', '<Amt Ccy="EUR">123.456</Amt>')))).toMatch(
      /Ntry\[0\]\/Amt "123\.456" is not an amount with at most 2 decimals/,
    );
    expect(parseError(() => parseCamt054(xml.replace('<CdtDbtInd>DBIT</CdtDbtInd>', '<CdtDbtInd>XXXX</CdtDbtInd>')))).toMatch(/CdtDbtInd is "XXXX"/);
    expect(parseError(() => parseCamt054(xml.replace(/<MsgId>NTF-1<\/MsgId>/, '')))).toMatch(/GrpHdr\/MsgId is missing/);
    expect(parseError(() => parseCamt054(xml.replace(/<Ntfctn>[\s\S]*<\/Ntfctn>/, '')))).toMatch(/Ntfctn is missing/);
  });
});

describe('parsing safety', () => {
  const doctype = `<?xml version="1.0"?>
<!DOCTYPE Document [ <!ENTITY xxe SYSTEM "file:///etc/passwd"> ]>
<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.054.001.08"><BkToCstmrDbtCdtNtfctn><GrpHdr><MsgId>&xxe;</MsgId></GrpHdr></BkToCstmrDbtCdtNtfctn></Document>`;

  it('refuses a DOCTYPE or ENTITY declaration in every parser', () => {
    expect(parseError(() => parseCamt054(doctype))).toMatch(/DOCTYPE and ENTITY declarations are refused/);
    expect(parseError(() => parsePain002(doctype.replace('camt.054.001.08', 'pain.002.001.10')))).toMatch(/refused/);
    expect(parseError(() => parsePain001(doctype.replace('camt.054.001.08', 'pain.001.001.09')))).toMatch(/refused/);
    expect(parseError(() => parseCamt054(writeCamt054(notification).replace('<Document', '<!ENTITY a "b"><Document')))).toMatch(/refused/);
  });

  it(`refuses a file larger than MAX_ISO20022_BYTES (${MAX_ISO20022_BYTES})`, () => {
    expect(MAX_ISO20022_BYTES).toBe(10 * 1024 * 1024);
    const xml = writeCamt054(notification);
    const padded = xml.replace('</Document>', `<!--${'x'.repeat(MAX_ISO20022_BYTES)}--></Document>`);
    expect(parseError(() => parseCamt054(padded))).toMatch(/larger than 10485760 bytes/);
    // multi-byte characters count as bytes
    const wide = xml.replace('Invoice 42', 'é'.repeat(MAX_ISO20022_BYTES / 2));
    expect(parseError(() => parseCamt054(wide))).toMatch(/larger than/);
  });
});
