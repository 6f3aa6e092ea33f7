/**
 * The ISO 20022 writers' serialiser (src/rails/iso20022/xml.ts `writeDocument`) against the
 * library it replaced, fast-xml-parser's `XMLBuilder` with the options the writers used: the same
 * bytes for random element trees (names, attributes, text with every character XML escapes, empty
 * values, repeated elements, absent ones) and for a 10,000-transaction pain.001's tree.
 */
import fc from 'fast-check';
import { XMLBuilder } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { namespaceOf, writeDocument, type XmlTree } from '../../src/rails/iso20022/xml';

const builder = new XMLBuilder({ ignoreAttributes: false, attributeNamePrefix: '@', textNodeName: '#', format: true, indentBy: '  ', suppressEmptyNode: true, processEntities: true });

function prune(tree: XmlTree): XmlTree {
  const out: XmlTree = {};
  for (const [k, v] of Object.entries(tree)) {
    if (v === undefined) continue;
    if (Array.isArray(v)) out[k] = (v as Array<string | XmlTree>).map((x) => (typeof x === 'string' ? x : prune(x))) as XmlTree[];
    else out[k] = typeof v === 'string' ? v : prune(v);
  }
  return out;
}

/** What the writers produced before (XMLBuilder). */
function reference(message: Parameters<typeof writeDocument>[0], body: XmlTree): string {
  const xml = builder.build({ Document: { '@xmlns': namespaceOf(message), ...prune(body) } }) as string;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${xml.trimEnd()}\n`;
}

const name = fc.constantFrom('MsgId', 'Nm', 'IBAN', 'Ustrd', 'InstdAmt', 'PmtId', 'Cdtr', 'Amt');
const text = fc.oneof(fc.constant(''), fc.string({ unit: fc.constantFrom('a', 'Z', '0', ' ', '&', '<', '>', "'", '"', 'é', '/', '-') }));
const tree: fc.Arbitrary<XmlTree> = fc.letrec<{ tree: XmlTree }>((tie) => ({
  tree: fc
    .tuple(
      fc.dictionary(name, fc.oneof({ depthSize: 'small' }, text, fc.constant(undefined), tie('tree'), fc.array(tie('tree'), { maxLength: 3 }), fc.array(text, { maxLength: 3 })), { maxKeys: 4 }),
      fc.option(fc.record({ '@Ccy': text })),
      fc.option(text),
    )
    .map(([children, attrs, body]) => ({ ...(attrs ?? {}), ...(body !== null && Object.keys(children).length === 0 ? { '#': body } : children) }) as XmlTree),
})).tree;

describe('writeDocument', () => {
  it('writes what XMLBuilder wrote, byte for byte, for any element tree', () => {
    fc.assert(
      fc.property(tree, (body) => {
        expect(writeDocument('pain.001.001.09', { CstmrCdtTrfInitn: body })).toBe(reference('pain.001.001.09', { CstmrCdtTrfInitn: body }));
      }),
      { numRuns: 2000 },
    );
  });

  it("writes a 10,000-transaction pain.001's tree as XMLBuilder did", () => {
    const transactions: XmlTree[] = Array.from({ length: 10_000 }, (_, i) => ({
      PmtId: { EndToEndId: `E2E-${i}`, UETR: `3f1c2a4b-5d6e-4f70-8a9b-${i.toString(16).padStart(12, '0')}` },
      Amt: { InstdAmt: { '@Ccy': 'EUR', '#': `${i}.05` } },
      CdtrAgt: i % 3 ? { FinInstnId: { BICFI: 'COBADEFFXXX' } } : undefined,
      Cdtr: { Nm: i % 7 ? `Müller & Söhne <${i}>` : "O'Brien \"Ltd\"" },
      CdtrAcct: { Id: { IBAN: 'DE89370400440532013000' } },
      RmtInf: i % 2 ? { Ustrd: `Invoice ${i}` } : undefined,
    }));
    const body: XmlTree = { CstmrCdtTrfInitn: { GrpHdr: { MsgId: 'M-1', NbOfTxs: '10000' }, PmtInf: { PmtInfId: 'M-1-1', CdtTrfTxInf: transactions } } };
    expect(writeDocument('pain.001.001.09', body)).toBe(reference('pain.001.001.09', body));
  });
});
