/** The UN Security Council consolidated list, `consolidated.xml` of schema `sc-consolidated.xsd` (the fields read: docs/screening.md "Lists"). */
import { type EntryKind, type EntryName, ListFormatError, type ListFiles, type ListEntry, type ParsedList, type ScreeningListModule, listSourceSettings } from '../entry';
import { countryCode, isoDate } from '../normalize';
import { type XmlNode, all, distinct, one, parseXml, text, texts } from './xml';

const { settings, source } = listSourceSettings('SCREENING_UN_SC', 'the UN Security Council consolidated list', {
  url: 'https://scsanctions.un.org/resources/xml/en/consolidated.xml',
  refreshMinutes: 60,
  maxAgeHours: 48,
});

const ARRAYS = ['INDIVIDUAL', 'ENTITY', 'VALUE', 'INDIVIDUAL_ALIAS', 'ENTITY_ALIAS', 'INDIVIDUAL_ADDRESS', 'ENTITY_ADDRESS', 'INDIVIDUAL_DATE_OF_BIRTH', 'INDIVIDUAL_DOCUMENT', 'INDIVIDUAL_PLACE_OF_BIRTH'];

const DOCS: readonly [RegExp, string][] = [
  [/passport/i, 'passport'],
  [/national identification|identity card|national id/i, 'national_id'],
  [/tax/i, 'tax_id'],
];

function entry(e: XmlNode, kind: EntryKind): ListEntry {
  const prefix = kind === 'individual' ? 'INDIVIDUAL' : 'ENTITY';
  const names: EntryName[] = [
    { name: ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME'].map((k) => text(e[k])).filter(Boolean).join(' '), type: 'primary' },
    ...all(e, `${prefix}_ALIAS`).map((a): EntryName => ({ name: text(a['ALIAS_NAME']), type: text(a['QUALITY']).toLowerCase() === 'low' ? 'weak_aka' : 'aka' })),
  ];
  return {
    id: text(e['DATAID']),
    kind,
    names: names.filter((n) => n.name),
    datesOfBirth: distinct(
      all(e, 'INDIVIDUAL_DATE_OF_BIRTH').flatMap((d) => [isoDate(text(d['DATE'])), isoDate(text(d['YEAR'])), isoDate(text(d['FROM_YEAR'])), isoDate(text(d['TO_YEAR']))]),
    ),
    countries: distinct([
      ...texts(one(e, 'NATIONALITY'), 'VALUE').map(countryCode),
      ...all(e, `${prefix}_ADDRESS`).map((a) => countryCode(text(a['COUNTRY']))),
      ...all(e, 'INDIVIDUAL_PLACE_OF_BIRTH').map((a) => countryCode(text(a['COUNTRY']))),
    ]),
    identifiers: all(e, 'INDIVIDUAL_DOCUMENT').flatMap((d) => {
      const value = text(d['NUMBER']);
      return value ? [{ type: DOCS.find(([re]) => re.test(text(d['TYPE_OF_DOCUMENT'])))?.[1] ?? 'other', value }] : [];
    }),
    programs: distinct([text(e['UN_LIST_TYPE'])]),
  };
}

/** Parses `consolidated.xml`; throws {@link ListFormatError} when it is not a `CONSOLIDATED_LIST`. */
export function parseUnSc(files: ListFiles): ParsedList {
  const xml = files.get('consolidated.xml');
  if (xml === undefined) throw new ListFormatError('consolidated.xml is missing');
  const root = parseXml(xml, 'consolidated.xml', ARRAYS)['CONSOLIDATED_LIST'] as XmlNode | undefined;
  if (!root || typeof root !== 'object') throw new ListFormatError('consolidated.xml: no CONSOLIDATED_LIST root element');
  const entries = [...all(one(root, 'INDIVIDUALS'), 'INDIVIDUAL').map((e) => entry(e, 'individual')), ...all(one(root, 'ENTITIES'), 'ENTITY').map((e) => entry(e, 'entity'))];
  if (entries.some((e) => !e.id || e.names.length === 0)) throw new ListFormatError('consolidated.xml: an entry without DATAID or FIRST_NAME');
  const generated = text(root['dateGenerated']);
  return { publishedAt: generated && !Number.isNaN(Date.parse(generated)) ? new Date(generated) : null, entries };
}

/** The UN Security Council consolidated list module (`un-sc`). */
export const unSc: ScreeningListModule = {
  id: 'un-sc',
  title: 'UN Security Council consolidated list (XML)',
  settings,
  files: ['consolidated.xml'],
  parse: parseUnSc,
  source,
};
