/** The EU consolidated financial sanctions list, Financial Sanctions Files XML 1.1 (the fields read: docs/screening.md "Lists"). */
import { type EntryKind, type EntryName, ListFormatError, type ListFiles, type ParsedList, type ScreeningListModule, listSourceSettings } from '../entry';
import { countryCode, isoDate } from '../normalize';
import { all, distinct, parseXml, text } from './xml';

const { settings, source } = listSourceSettings('SCREENING_EU_FSF', 'the EU consolidated financial sanctions list', {
  refreshMinutes: 60,
  maxAgeHours: 48,
});

const ARRAYS = ['sanctionEntity', 'nameAlias', 'regulation', 'citizenship', 'birthdate', 'identification', 'address'];
const ID_TYPES: Record<string, string> = { passport: 'passport', id: 'national_id', fiscalcode: 'tax_id', regnumber: 'registration', swiftbic: 'bic', imo: 'imo', ssn: 'ssn' };

/** A `birthdate` element's date as an ISO 8601 prefix. */
function birthdate(b: Record<string, unknown>): string | null {
  const full = isoDate(text(b['birthdate']));
  if (full) return full;
  const y = text(b['year']);
  if (!/^\d{4}$/.test(y)) return null;
  const mo = text(b['monthOfYear']);
  const d = text(b['dayOfMonth']);
  return mo ? `${y}-${mo.padStart(2, '0')}${d ? `-${d.padStart(2, '0')}` : ''}` : y;
}

/** Parses the EU file (`eu-fsf.xml`); throws {@link ListFormatError} when it is not an `export`. */
export function parseEuFsf(files: ListFiles): ParsedList {
  const xml = files.get('eu-fsf.xml');
  if (xml === undefined) throw new ListFormatError('eu-fsf.xml is missing');
  const root = parseXml(xml, 'eu-fsf.xml', ARRAYS)['export'] as Record<string, unknown> | undefined;
  if (!root || typeof root !== 'object') throw new ListFormatError('eu-fsf.xml: no export root element');
  const entries = all(root, 'sanctionEntity').map((e) => {
    const names: EntryName[] = all(e, 'nameAlias').map((a, i) => ({
      name: text(a['wholeName']) || [a['firstName'], a['middleName'], a['lastName']].map(text).filter(Boolean).join(' '),
      type: i === 0 ? 'primary' : text(a['strong']) === 'false' ? 'weak_aka' : 'aka',
    }));
    const code = text((e['subjectType'] as Record<string, unknown> | undefined)?.['code']);
    return {
      id: text(e['logicalId']) || text(e['euReferenceNumber']),
      kind: (code === 'person' ? 'individual' : 'entity') as EntryKind,
      names: names.filter((n) => n.name),
      datesOfBirth: distinct(all(e, 'birthdate').map(birthdate)),
      countries: distinct([...all(e, 'citizenship'), ...all(e, 'address'), ...all(e, 'birthdate')].map((c) => countryCode(text(c['countryIso2Code']) || text(c['countryDescription'])))),
      identifiers: all(e, 'identification').flatMap((i) => {
        const value = text(i['number']) || text(i['latinNumber']);
        return value ? [{ type: ID_TYPES[text(i['identificationTypeCode']).toLowerCase()] ?? 'other', value }] : [];
      }),
      programs: distinct(all(e, 'regulation').map((r) => text(r['programme']))),
    };
  });
  if (entries.some((e) => !e.id || e.names.length === 0)) throw new ListFormatError('eu-fsf.xml: a sanctionEntity without logicalId or nameAlias');
  const generated = text(root['generationDate']);
  return { publishedAt: generated && !Number.isNaN(Date.parse(generated)) ? new Date(generated) : null, entries };
}

/** The EU consolidated financial sanctions list module (`eu-fsf`). */
export const euFsf: ScreeningListModule = {
  id: 'eu-fsf',
  title: 'EU consolidated financial sanctions list (XML)',
  settings,
  files: ['eu-fsf.xml'],
  parse: parseEuFsf,
  source,
};
