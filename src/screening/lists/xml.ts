/** fast-xml-parser set up the way the XML list parsers read (docs/screening.md "Lists"): every value a string. */
import type * as FastXml from 'fast-xml-parser';
import { lazyPackage } from '../../lazy-package';

const fastXml = lazyPackage<typeof FastXml>('fast-xml-parser');
import { ListFormatError } from '../entry';

/** A parsed element: attributes under their own names, child elements under theirs, text as `#text`. */
export type XmlNode = Record<string, unknown>;

/**
 * Parses `text`, namespace prefixes removed, attributes kept without prefix, no value coerced to a number (document numbers keep their leading zeros); the elements named in `arrays` are always
 * arrays. Throws {@link ListFormatError} on malformed XML.
 */
export function parseXml(text: string, file: string, arrays: readonly string[]): XmlNode {
  const valid = fastXml().XMLValidator.validate(text);
  if (valid !== true) throw new ListFormatError(`${file}: not well-formed XML (${valid.err.msg}, line ${valid.err.line})`);
  const set = new Set(arrays);
  return new (fastXml().XMLParser)({
    ignoreAttributes: false,
    attributeNamePrefix: '',
    removeNSPrefix: true,
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    isArray: (name) => set.has(name),
  }).parse(text) as XmlNode;
}

/** The text of an element or attribute value (`''` when absent or empty). */
export function text(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'object') return text((v as XmlNode)['#text']);
  return String(v).trim();
}

/** The child elements `name` of `node` as an array. */
export function all(node: unknown, name: string): XmlNode[] {
  if (!node || typeof node !== 'object') return [];
  const v = (node as XmlNode)[name];
  if (v === undefined || v === '') return [];
  return (Array.isArray(v) ? v : [v]).filter((x): x is XmlNode => typeof x === 'object' && x !== null);
}

/** The texts of the child elements `name` of `node` (elements with only text, or with attributes and text). */
export function texts(node: unknown, name: string): string[] {
  if (!node || typeof node !== 'object') return [];
  const v = (node as XmlNode)[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v]).map(text).filter(Boolean);
}

/** The first child element `name` of `node`, else undefined. */
export function one(node: unknown, name: string): XmlNode | undefined {
  return all(node, name)[0];
}

/** Distinct non-empty strings. */
export const distinct = (xs: (string | null | undefined)[]): string[] => [...new Set(xs.filter((x): x is string => !!x))];
