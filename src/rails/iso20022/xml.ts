/** XML for the ISO 20022 writers and parsers (DOCTYPE and ENTITY refused, size-limited). */
import { lazyPackage } from '../../lazy-package';

/** Bytes (UTF-8); larger input throws {@link Iso20022ParseError}. */
export const MAX_ISO20022_BYTES = 10 * 1024 * 1024;

export type Iso20022Message = 'pain.001.001.09' | 'pain.002.001.10' | 'pain.002.001.14' | 'camt.054.001.08' | 'camt.053.001.08';

export function namespaceOf(message: Iso20022Message): string {
  return `urn:iso:std:iso:20022:tech:xsd:${message}`;
}

/** `message` says what is wrong and where. */
export class Iso20022ParseError extends Error {
  override readonly name = 'Iso20022ParseError';
}

/** Keys are element names (`@name` attributes, `#` text); arrays repeat. */
export type XmlTree = { [key: string]: XmlValue };
type XmlValue = string | XmlTree | XmlTree[] | string[] | undefined;

const ENTITIES: Record<string, string> = { '&': '&amp;', '>': '&gt;', '<': '&lt;', "'": '&apos;', '"': '&quot;' };
const escapeXml = (s: string) => (/[&<>'"]/.test(s) ? s.replace(/[&<>'"]/g, (c) => ENTITIES[c]!) : s);

const PADS = Array.from({ length: 32 }, (_, depth) => '  '.repeat(depth));

/** One element and its children appended to `out`, two spaces per level, in key order; an empty one is `<Name/>`. */
function writeElement(out: string, name: string, value: string | XmlTree, depth: number): string {
  const pad = PADS[depth] ?? '  '.repeat(depth);
  if (typeof value === 'string') return out + (value === '' ? `${pad}<${name}/>\n` : `${pad}<${name}>${escapeXml(value)}</${name}>\n`);
  let attributes = '';
  let text = '';
  let open = false;
  let inner = '';
  for (const key in value) {
    const v = value[key];
    if (v === undefined) continue;
    if (key === '#') text = v as string;
    else if (key.startsWith('@')) attributes += ` ${key.slice(1)}="${escapeXml(v as string)}"`;
    else if (Array.isArray(v)) {
      for (const item of v) inner = writeElement(inner, key, item, depth + 1);
      open ||= v.length > 0;
    } else {
      inner = writeElement(inner, key, v, depth + 1);
      open = true;
    }
  }
  if (!open) return out + (text === '' ? `${pad}<${name}${attributes}/>\n` : `${pad}<${name}${attributes}>${escapeXml(text)}</${name}>\n`);
  if (text !== '') throw new Error(`XML element ${name} has both text and children`);
  return `${out}${pad}<${name}${attributes}>\n${inner}${pad}</${name}>\n`;
}

/** `body` under `<Document xmlns=...>`, indented: XMLBuilder's bytes (test/unit/iso20022-writer.test.ts), faster. */
export function writeDocument(message: Iso20022Message, body: XmlTree): string {
  return writeElement('<?xml version="1.0" encoding="UTF-8"?>\n', 'Document', { '@xmlns': namespaceOf(message), ...body }, 0);
}

/** UTC, no milliseconds (`2026-11-25T06:00:00Z`). */
export function isoDateTime(d: Date): string {
  return d.toISOString().replace(/\.[0-9]{3}Z$/, 'Z');
}

/** Text is `#text`, attributes `@_name`. */
export type XmlNode = { [key: string]: unknown };

type FastXmlParser = typeof import('fast-xml-parser');

const parser = lazyPackage<FastXmlParser, InstanceType<FastXmlParser['XMLParser']>>('fast-xml-parser', (m) => new m.XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  // No DTD can define an entity: a DOCTYPE or ENTITY is refused before parsing (parseDocument).
  processEntities: true,
  htmlEntities: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  trimValues: true,
  alwaysCreateTextNode: false,
  isArray: (_name, jpath) => REPEATED.has(String(jpath).split('.').slice(-2).map(local).join('.')),
}));

/** Read as arrays whatever their count. */
const REPEATED = new Set([
  'CstmrCdtTrfInitn.PmtInf',
  'PmtInf.CdtTrfTxInf',
  'CstmrPmtStsRpt.OrgnlPmtInfAndSts',
  'OrgnlGrpInfAndSts.StsRsnInf',
  'OrgnlPmtInfAndSts.StsRsnInf',
  'OrgnlPmtInfAndSts.TxInfAndSts',
  'TxInfAndSts.StsRsnInf',
  'StsRsnInf.AddtlInf',
  'BkToCstmrDbtCdtNtfctn.Ntfctn',
  'Ntfctn.Ntry',
  'BkToCstmrStmt.Stmt',
  'Stmt.Bal',
  'Stmt.Ntry',
  'Ntry.NtryDtls',
  'NtryDtls.TxDtls',
  'RmtInf.Ustrd',
]);

/** Throws {@link Iso20022ParseError} over {@link MAX_ISO20022_BYTES}, on a DOCTYPE/ENTITY, malformed XML or a wrong root. */
export function parseDocument(xml: string, message: Iso20022Message, rootName: string): XmlNode {
  if (Buffer.byteLength(xml, 'utf8') > MAX_ISO20022_BYTES) {
    throw new Iso20022ParseError(`${message}: file is larger than ${MAX_ISO20022_BYTES} bytes`);
  }
  if (/<!DOCTYPE/i.test(xml) || /<!ENTITY/i.test(xml)) {
    throw new Iso20022ParseError(`${message}: DOCTYPE and ENTITY declarations are refused`);
  }
  let parsed: XmlNode;
  try {
    parsed = parser().parse(xml, true) as XmlNode;
  } catch (err) {
    throw new Iso20022ParseError(`${message}: not well-formed XML (${(err as Error).message.split('\n')[0]})`);
  }
  const rootKeys = Object.keys(parsed).filter((k) => !k.startsWith('?') && !k.startsWith('#'));
  const docKey = rootKeys.length === 1 && local(rootKeys[0]) === 'Document' ? rootKeys[0] : null;
  const rawDoc = docKey ? parsed[docKey] : null;
  if (!docKey || !isNode(rawDoc)) throw new Iso20022ParseError(`${message}: the root element is not Document`);
  const prefix = docKey.includes(':') ? docKey.slice(0, docKey.indexOf(':')) : null;
  const ns = rawDoc[prefix ? `@_xmlns:${prefix}` : '@_xmlns'];
  if (ns !== namespaceOf(message)) {
    throw new Iso20022ParseError(`${message}: wrong namespace ${JSON.stringify(ns ?? null)}, expected ${namespaceOf(message)}`);
  }
  const doc = stripPrefixes(rawDoc, prefix);
  const root = doc[rootName];
  if (!isNode(root)) throw new Iso20022ParseError(`${message}: Document/${rootName} is missing`);
  return root;
}

function local(name: string): string {
  const i = name.indexOf(':');
  return i < 0 || name.startsWith('@_') ? name : name.slice(i + 1);
}

/** An element in another namespace keeps its prefix, so it is never taken for the message's own. */
function stripPrefixes(node: XmlNode, prefix: string | null): XmlNode {
  const out: XmlNode = {};
  for (const [key, value] of Object.entries(node)) {
    const name = prefix && key.startsWith(`${prefix}:`) ? key.slice(prefix.length + 1) : key;
    const copy = (v: unknown): unknown => (isNode(v) ? stripPrefixes(v, prefix) : v);
    out[name] = Array.isArray(value) ? value.map(copy) : copy(value);
  }
  return out;
}

function isNode(v: unknown): v is XmlNode {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Errors name the path of what is missing. */
export class Reader {
  constructor(
    readonly node: XmlNode,
    readonly path: string,
    private readonly message: Iso20022Message,
  ) {}

  child(name: string): Reader | null {
    const v = this.node[name];
    const first = Array.isArray(v) ? v[0] : v;
    return isNode(first) ? new Reader(first, `${this.path}/${name}`, this.message) : null;
  }

  need(name: string): Reader {
    const c = this.child(name);
    if (!c) throw this.error(`${this.path}/${name} is missing`);
    return c;
  }

  all(name: string): Reader[] {
    const v = this.node[name];
    const list = v === undefined ? [] : Array.isArray(v) ? v : [v];
    return list.map((x, i) => {
      if (!isNode(x)) throw this.error(`${this.path}/${name}[${i}] is not an element`);
      return new Reader(x, `${this.path}/${name}[${i}]`, this.message);
    });
  }

  /** `path` is relative (`A/B/C`); `null` when any step is absent. */
  text(path: string): string | null {
    const steps = path.split('/');
    let node: XmlNode | null = this.node;
    for (let i = 0; i < steps.length && node; i++) {
      const raw: unknown = node[steps[i]];
      const v: unknown = Array.isArray(raw) ? raw[0] : raw;
      if (i === steps.length - 1) {
        if (typeof v === 'string') return v;
        if (isNode(v) && typeof v['#text'] === 'string') return v['#text'];
        return v === '' ? '' : null;
      }
      node = isNode(v) ? v : null;
    }
    return null;
  }

  needText(path: string): string {
    const t = this.text(path);
    if (t === null || t === '') throw this.error(`${this.path}/${path} is missing`);
    return t;
  }

  attr(path: string, attr: string): string | null {
    const steps = path.split('/');
    let v: unknown = this.node;
    for (const s of steps) {
      const raw: unknown = isNode(v) ? v[s] : undefined;
      v = Array.isArray(raw) ? raw[0] : raw;
    }
    const a = isNode(v) ? v[`@_${attr}`] : undefined;
    return typeof a === 'string' ? a : null;
  }

  error(what: string): Iso20022ParseError {
    return new Iso20022ParseError(`${this.message}: ${what}`);
  }
}
