/** OFAC's SDN list as its CSV set (docs/screening.md "Lists"): the official columns below, no header row, `-0-` as null, no publication date. */
import type { parse as parseCsv } from 'csv-parse/sync';
import { lazyPackage } from '../../lazy-package';

const csv = lazyPackage<{ parse: typeof parseCsv }>('csv-parse/sync');
import { type EntryKind, type ListEntry, ListFormatError, type ListFiles, type ParsedList, type ScreeningListModule, listSourceSettings } from '../entry';
import { countryCode } from '../normalize';
import { parseOfacRemarks } from './ofac-remarks';

const { settings, source } = listSourceSettings('SCREENING_OFAC_SDN_CSV', 'the OFAC SDN CSV set', {
  url: 'https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/',
  refreshMinutes: 60,
  maxAgeHours: 48,
});

/** Rows of one file, `-0-` as null, trailing blanks trimmed; the DOS end-of-file byte some copies end with is ignored. */
function rows(text: string | undefined, file: keyof typeof COLUMNS): (string | null)[][] {
  if (text === undefined) return [];
  let records: string[][];
  try {
    records = csv().parse(text.replaceAll('\u001a', ''), { relax_column_count: true, relax_quotes: true, skip_empty_lines: true, trim: true });
  } catch (err) {
    throw new ListFormatError(`${file}: ${(err as Error).message}`);
  }
  return records
    .filter((r) => r.length >= 2)
    .map((r) => {
      if (r.length < COLUMNS[file].length) throw new ListFormatError(`${file}: a row has ${r.length} columns, the official layout has ${COLUMNS[file].length}`);
      return r.map((v) => (v === '-0-' || v === '' ? null : v));
    });
}

const COLUMNS = {
  'sdn.csv': ['ent_num', 'SDN_Name', 'SDN_Type', 'Program', 'Title', 'Call_Sign', 'Vess_type', 'Tonnage', 'GRT', 'Vess_flag', 'Vess_owner', 'Remarks'],
  'add.csv': ['Ent_num', 'Add_num', 'Address', 'City/State/Province/Postal Code', 'Country', 'Add_remarks'],
  'alt.csv': ['ent_num', 'alt_num', 'alt_type', 'alt_name', 'alt_remarks'],
  'sdn_comments.csv': ['ent_num', 'Remarks_Extended'],
} as const;

const KINDS: Record<string, EntryKind> = { individual: 'individual', vessel: 'vessel', aircraft: 'aircraft' };

/** Parses the OFAC SDN CSV set; throws {@link ListFormatError} when `sdn.csv` is missing or not in the official layout. */
export function parseOfacSdnCsv(files: ListFiles): ParsedList {
  const sdn = files.get('sdn.csv');
  if (sdn === undefined) throw new ListFormatError('sdn.csv is missing');
  const byId = new Map<string, ListEntry & { remarks: string[] }>();
  for (const r of rows(sdn, 'sdn.csv')) {
    const [id, name, type, program, , , , , , flag, , remarks] = r;
    if (!id || !/^\d+$/.test(id) || !name) throw new ListFormatError(`sdn.csv: a row without ent_num or SDN_Name (${JSON.stringify(r.slice(0, 3))})`);
    const flagCode = countryCode(flag);
    byId.set(id, {
      id,
      kind: KINDS[(type ?? '').toLowerCase()] ?? 'entity',
      names: [{ name, type: 'primary' }],
      datesOfBirth: [],
      countries: flagCode ? [flagCode] : [],
      identifiers: [],
      programs: (program ?? '').split(/\]\s*\[/).map((p) => p.replace(/[[\]]/g, '').trim()).filter(Boolean),
      remarks: remarks ? [remarks] : [],
    });
  }
  for (const [id, , address, city, country] of rows(files.get('add.csv'), 'add.csv')) {
    const e = byId.get(id ?? '');
    const c = countryCode(country) ?? countryCode(city?.split(',').at(-1)) ?? countryCode(address?.split(',').at(-1));
    if (e && c) e.countries.push(c);
  }
  for (const [id, , type, name, remarks] of rows(files.get('alt.csv'), 'alt.csv')) {
    const e = byId.get(id ?? '');
    if (!e || !name) continue;
    const t = (type ?? 'aka').toLowerCase();
    e.names.push({ name, type: /weak/i.test(remarks ?? '') ? 'weak_aka' : t === 'fka' || t === 'nka' ? t : 'aka' });
  }
  for (const [id, extended] of rows(files.get('sdn_comments.csv'), 'sdn_comments.csv')) {
    const e = byId.get(id ?? '');
    if (e && extended) e.remarks.push(extended);
  }
  const entries: ListEntry[] = [];
  for (const { remarks, ...e } of byId.values()) {
    const facts = parseOfacRemarks(remarks.join(''));
    entries.push({
      ...e,
      datesOfBirth: [...new Set(facts.datesOfBirth)],
      countries: [...new Set([...e.countries, ...facts.countries])],
      identifiers: facts.identifiers,
    });
  }
  return { publishedAt: null, entries };
}

/** The OFAC SDN CSV list module (`ofac-sdn-csv`). */
export const ofacSdnCsv: ScreeningListModule = {
  id: 'ofac-sdn-csv',
  title: 'OFAC SDN (CSV)',
  settings,
  files: ['sdn.csv', 'add.csv', 'alt.csv', 'sdn_comments.csv'],
  remoteNames: { 'sdn.csv': 'SDN.CSV', 'add.csv': 'ADD.CSV', 'alt.csv': 'ALT.CSV', 'sdn_comments.csv': 'SDN_COMMENTS.CSV' },
  parse: parseOfacSdnCsv,
  source,
};
