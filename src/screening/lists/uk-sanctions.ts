/** The FCDO's UK Sanctions List as its XML (the fields read: docs/screening.md "Lists"); `Name6` is the family or entity name. */
import { type EntryKind, type EntryName, ListFormatError, type ListFiles, type ParsedList, type ScreeningListModule, listSourceSettings } from '../entry';
import { countryCode, isoDate } from '../normalize';
import { type XmlNode, all, distinct, one, parseXml, text, texts } from './xml';

const { settings, source } = listSourceSettings('SCREENING_UK_SANCTIONS', 'the UK Sanctions List', {
  refreshMinutes: 60,
  maxAgeHours: 48,
});

const ARRAYS = ['Designation', 'Name', 'Address', 'Individual', 'DOB', 'Nationality', 'PassportDetail', 'NationalIdentifierDetail', 'Ship', 'IMONumber'];
const KINDS: Record<string, EntryKind> = { individual: 'individual', entity: 'entity', ship: 'vessel' };

/** Parses `UK_Sanctions_List.xml`; throws {@link ListFormatError} when it is not `Designations`. */
export function parseUkSanctions(files: ListFiles): ParsedList {
  const xml = files.get('UK_Sanctions_List.xml');
  if (xml === undefined) throw new ListFormatError('UK_Sanctions_List.xml is missing');
  const root = parseXml(xml, 'UK_Sanctions_List.xml', ARRAYS)['Designations'] as XmlNode | undefined;
  if (!root || typeof root !== 'object') throw new ListFormatError('UK_Sanctions_List.xml: no Designations root element');
  const entries = all(root, 'Designation').map((d) => {
    const people = all(one(d, 'IndividualDetails'), 'Individual');
    const names = all(one(d, 'Names'), 'Name')
      .map((n): EntryName => ({
        name: ['Name1', 'Name2', 'Name3', 'Name4', 'Name5', 'Name6'].map((k) => text(n[k])).filter(Boolean).join(' '),
        type: /primary/i.test(text(n['NameType'])) ? 'primary' : 'aka',
      }))
      .filter((n) => n.name)
      .sort((a, b) => (a.type === 'primary' ? 0 : 1) - (b.type === 'primary' ? 0 : 1));
    return {
      id: text(d['UniqueID']),
      kind: KINDS[text(d['IndividualEntityShip']).toLowerCase()] ?? 'entity',
      names,
      datesOfBirth: distinct(people.flatMap((p) => texts(one(p, 'DOBs'), 'DOB').map(isoDate))),
      countries: distinct([
        ...all(one(d, 'Addresses'), 'Address').map((a) => countryCode(text(a['AddressCountry']))),
        ...people.flatMap((p) => texts(one(p, 'Nationalities'), 'Nationality').map(countryCode)),
      ]),
      identifiers: [
        ...people.flatMap((p) => all(one(p, 'PassportDetails'), 'PassportDetail').map((x) => ({ type: 'passport', value: text(x['PassportNumber']) }))),
        ...people.flatMap((p) => all(one(p, 'NationalIdentifierDetails'), 'NationalIdentifierDetail').map((x) => ({ type: 'national_id', value: text(x['NationalIdentifierNumber']) }))),
        ...all(one(d, 'ShipDetails'), 'Ship').flatMap((s) => texts(one(s, 'IMONumbers'), 'IMONumber').map((value) => ({ type: 'imo', value }))),
      ].filter((i) => i.value),
      programs: distinct([text(d['RegimeName'])]),
    };
  });
  if (entries.some((e) => !e.id || e.names.length === 0)) throw new ListFormatError('UK_Sanctions_List.xml: a Designation without UniqueID or Names');
  const generated = text(root['DateGenerated']);
  return { publishedAt: generated && !Number.isNaN(Date.parse(generated)) ? new Date(generated) : null, entries };
}

/** The UK Sanctions List module (`uk-sanctions`). */
export const ukSanctions: ScreeningListModule = {
  id: 'uk-sanctions',
  title: 'UK Sanctions List (XML)',
  settings,
  files: ['UK_Sanctions_List.xml'],
  parse: parseUkSanctions,
  source,
};
