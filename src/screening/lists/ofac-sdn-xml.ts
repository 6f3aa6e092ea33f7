/** OFAC's SDN list as its XML, `sdn.xml` of schema `sdn.xsd` (the fields read: docs/screening.md "Lists"). */
import { type EntryKind, type EntryName, ListFormatError, type ListFiles, type ParsedList, type ScreeningListModule, listSourceSettings } from '../entry';
import { countryCode, isoDate } from '../normalize';
import { all, distinct, one, parseXml, text, texts } from './xml';

const { settings, source } = listSourceSettings('SCREENING_OFAC_SDN_XML', 'the OFAC SDN XML', {
  url: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.XML',
  refreshMinutes: 60,
  maxAgeHours: 48,
});

const ARRAYS = ['sdnEntry', 'program', 'aka', 'address', 'id', 'dateOfBirthItem', 'nationality', 'citizenship'];

const ID_TYPES: readonly [RegExp, string][] = [
  [/^passport/i, 'passport'],
  [/national id|cedula|d\.n\.i|identification number/i, 'national_id'],
  [/c\.u\.r\.p/i, 'curp'],
  [/r\.f\.c/i, 'rfc'],
  [/tax id|nit #|ruc #/i, 'tax_id'],
  [/registration/i, 'registration'],
  [/legal entity number/i, 'lei'],
  [/swift|bic/i, 'bic'],
  [/imo/i, 'imo'],
  [/ssn/i, 'ssn'],
];

/** `Last, First` as OFAC writes a person's name; `Last` alone for entities. */
const fullName = (n: Record<string, unknown>): string => [text(n['lastName']), text(n['firstName'])].filter(Boolean).join(', ');

/** Parses `sdn.xml`; throws {@link ListFormatError} when it is not an `sdnList`. */
export function parseOfacSdnXml(files: ListFiles): ParsedList {
  const xml = files.get('sdn.xml');
  if (xml === undefined) throw new ListFormatError('sdn.xml is missing');
  const list = parseXml(xml, 'sdn.xml', ARRAYS)['sdnList'];
  if (!list || typeof list !== 'object') throw new ListFormatError('sdn.xml: no sdnList root element');
  const published = text(one(list, 'publshInformation')?.['Publish_Date']);
  const pm = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(published);
  const entries = all(list, 'sdnEntry').map((e) => {
    const type = text(e['sdnType']).toLowerCase();
    const names: EntryName[] = [{ name: fullName(e), type: 'primary' }];
    for (const a of all(one(e, 'akaList'), 'aka')) {
      const t = text(a['type']).toLowerCase().replace(/\./g, '');
      names.push({ name: fullName(a), type: text(a['category']).toLowerCase() === 'weak' ? 'weak_aka' : t === 'fka' || t === 'nka' ? t : 'aka' });
    }
    return {
      id: text(e['uid']),
      kind: (type === 'individual' || type === 'vessel' || type === 'aircraft' ? type : 'entity') as EntryKind,
      names: names.filter((n) => n.name),
      datesOfBirth: distinct(all(one(e, 'dateOfBirthList'), 'dateOfBirthItem').flatMap((d) => text(d['dateOfBirth']).replace(/^circa\s+/i, '').split(/\s+to\s+/i).map(isoDate))),
      countries: distinct([
        ...all(one(e, 'addressList'), 'address').map((a) => countryCode(text(a['country']))),
        ...all(one(e, 'nationalityList'), 'nationality').map((a) => countryCode(text(a['country']))),
        ...all(one(e, 'citizenshipList'), 'citizenship').map((a) => countryCode(text(a['country']))),
      ]),
      identifiers: all(one(e, 'idList'), 'id').flatMap((i) => {
        const t = ID_TYPES.find(([re]) => re.test(text(i['idType'])))?.[1];
        return t && text(i['idNumber']) ? [{ type: t, value: text(i['idNumber']) }] : [];
      }),
      programs: texts(one(e, 'programList'), 'program'),
    };
  });
  if (entries.some((e) => !e.id || e.names.length === 0)) throw new ListFormatError('sdn.xml: an sdnEntry without uid or lastName');
  return { publishedAt: pm ? new Date(`${pm[3]}-${pm[1]}-${pm[2]}T00:00:00Z`) : null, entries };
}

/** The OFAC SDN XML list module (`ofac-sdn-xml`). */
export const ofacSdnXml: ScreeningListModule = {
  id: 'ofac-sdn-xml',
  title: 'OFAC SDN (XML)',
  settings,
  files: ['sdn.xml'],
  parse: parseOfacSdnXml,
  source,
};
