/** Name, country and date normalisation shared by the list parsers and the matcher (docs/screening.md "Matching"). Pure functions. */
import { transliterate } from '../rails/transliterate';

/** Words that never score alone: legal forms, generic business words, name particles (docs/screening.md "Matching"). */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  'ag', 'as', 'bv', 'cjsc', 'co', 'company', 'corp', 'corporation', 'cv', 'gmbh', 'inc', 'incorporated', 'jsc', 'kg', 'llc', 'llp',
  'lp', 'ltd', 'limited', 'nv', 'oao', 'ojsc', 'ooo', 'pao', 'pjsc', 'plc', 'pte', 'pty', 'sa', 'sal', 'sarl', 'sas', 'spa', 'srl',
  'zao', 'fze', 'fzco', 'fzc', 'ltda', 'sac', 'sl', 'se', 'ab', 'oy', 'kft', 'doo', 'tov',
  'bank', 'banco', 'banque', 'group', 'holding', 'holdings', 'international', 'trading', 'general', 'services', 'enterprise',
  'enterprises', 'industries', 'industrial', 'import', 'export', 'investment', 'investments', 'shipping', 'petroleum', 'oil', 'gas',
  'the', 'and', 'of', 'for', 'y', 'et', 'und',
  'de', 'del', 'della', 'der', 'den', 'di', 'da', 'do', 'dos', 'das', 'du', 'la', 'le', 'el', 'al', 'van', 'von', 'bin', 'ibn', 'abu',
  'mr', 'mrs', 'ms', 'dr',
]);

/** A name as compared (docs/screening.md "Matching"): Latin script, no accents, lower case, no punctuation; `LAST, First` turned to `First LAST`. */
export function normalizeName(name: string): string {
  let n = name.trim();
  const comma = /^([^,]+),\s*([^,]+)$/.exec(n);
  if (comma) n = `${comma[2]} ${comma[1]}`;
  return transliterate(n)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** The tokens of a normalised name that may score: stop words removed. */
export function nameTokens(normalized: string): string[] {
  return normalized.split(' ').filter((t) => t.length > 0 && !STOP_WORDS.has(t));
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });
/** Region codes the runtime names that are no current country (withdrawn: DD East Germany shown as "Germany", SU, YU; groupings: EU, UN). */
const NOT_COUNTRIES = new Set(['AN', 'BU', 'CS', 'DD', 'EU', 'EZ', 'FX', 'NT', 'QO', 'SU', 'TP', 'UN', 'YD', 'YU', 'ZR', 'ZZ']);
let countryIndex: Map<string, string> | undefined;

/** Country names and common variants -> ISO 3166-1 alpha-2, built once from the runtime's CLDR data. */
function countries(): Map<string, string> {
  if (countryIndex) return countryIndex;
  countryIndex = new Map();
  const A = 'A'.charCodeAt(0);
  for (let i = 0; i < 26; i++) {
    for (let j = 0; j < 26; j++) {
      const code = String.fromCharCode(A + i, A + j);
      const name = regionNames.of(code);
      const key = name && name !== code && !NOT_COUNTRIES.has(code) ? normalizeName(name) : '';
      if (key && !countryIndex.has(key)) countryIndex.set(key, code); // the first (current) code wins over a withdrawn one (RU over SU)
    }
  }
  const extra: Record<string, string> = {
    'russian federation': 'RU', burma: 'MM', 'korea, north': 'KP', 'north korea': 'KP', 'korea, south': 'KR', 'south korea': 'KR',
    "korea, democratic people's republic of": 'KP', "democratic people's republic of korea": 'KP', dprk: 'KP', 'iran, islamic republic of': 'IR',
    'syrian arab republic': 'SY', 'united states': 'US', usa: 'US', 'united kingdom': 'GB', uk: 'GB', 'viet nam': 'VN',
    'congo, democratic republic of the': 'CD', 'democratic republic of the congo': 'CD', "lao people's democratic republic": 'LA',
    'venezuela, bolivarian republic of': 'VE', 'bolivia, plurinational state of': 'BO', 'tanzania, united republic of': 'TZ',
    'moldova, republic of': 'MD', turkiye: 'TR', 'west bank': 'PS', 'gaza': 'PS', 'palestinian territories': 'PS',
  };
  for (const [k, v] of Object.entries(extra)) countryIndex.set(normalizeName(k), v);
  return countryIndex;
}

/** ISO 3166-1 alpha-2 of a country name or code as the lists write it (`Cuba`, `CU`, `Russian Federation`), else null. */
export function countryCode(nameOrCode: string | null | undefined): string | null {
  if (!nameOrCode) return null;
  const t = nameOrCode.trim();
  const upper = t.toUpperCase();
  if (/^[A-Z]{2}$/.test(upper) && upper !== 'UK') return regionNames.of(upper) !== upper && !NOT_COUNTRIES.has(upper) ? upper : null;
  return countries().get(normalizeName(t)) ?? null;
}

const MONTHS: Record<string, string> = {
  jan: '01', feb: '02', mar: '03', apr: '04', may: '05', jun: '06', jul: '07', aug: '08', sep: '09', oct: '10', nov: '11', dec: '12',
};

/** A date as the lists write it (`10 Dec 1948`, `Dec 1948`, `1948-12-10`, day-first `10/12/1948`, `00` unknown) -> ISO 8601 prefix, else null. */
export function isoDate(text: string | null | undefined): string | null {
  if (!text) return null;
  const t = text.trim();
  let m = /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?)?/.exec(t);
  if (m) return [m[1], m[2] && m[2] !== '00' ? m[2] : null, m[3] && m[3] !== '00' && m[2] !== '00' ? m[3] : null].filter(Boolean).join('-');
  m = /^(?:(\d{1,2})\s+)?([A-Za-z]{3})[a-z]*\.?\s+(\d{4})$/.exec(t);
  if (m && MONTHS[m[2]!.toLowerCase()]) return `${m[3]}-${MONTHS[m[2]!.toLowerCase()]}${m[1] ? `-${m[1].padStart(2, '0')}` : ''}`;
  m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(t);
  if (m) {
    if (m[2] === '00' || m[2] === '0') return m[3]!;
    return `${m[3]}-${m[2]!.padStart(2, '0')}${m[1] !== '00' && m[1] !== '0' ? `-${m[1]!.padStart(2, '0')}` : ''}`;
  }
  return null;
}

/** An identifier as compared: letters and digits only, upper case. */
export function normalizeIdentifier(value: string): string {
  return value.toUpperCase().replace(/[^A-Z0-9]/g, '');
}
