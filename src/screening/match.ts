/** Name matching after OFAC's method (OFAC FAQ 249; docs/screening.md "Matching"), with talisman's Jaro-Winkler and Soundex; pure and in memory. */
import type jaroWinklerFn from 'talisman/metrics/jaro-winkler';
import type soundexFn from 'talisman/phonetics/soundex';
import { lazyPackage } from '../lazy-package';

const jw = lazyPackage<{ default: typeof jaroWinklerFn } | typeof jaroWinklerFn, typeof jaroWinklerFn>('talisman/metrics/jaro-winkler', (m) => ('default' in m ? m.default : m));
const sx = lazyPackage<{ default: typeof soundexFn } | typeof soundexFn, typeof soundexFn>('talisman/phonetics/soundex', (m) => ('default' in m ? m.default : m));
/** Jaro-Winkler similarity (talisman, loaded at first use: docs/operations.md "Idle cost"). */
const jaroWinkler = (a: string, b: string): number => jw()(a, b);
const soundex = (t: string): string => sx()(t);
import type { ListEntry } from './entry';
import { countryCode, nameTokens, normalizeIdentifier, normalizeName } from './normalize';


/** Who is screened: a name, whether a person or an organisation, and what else the caller knows. */
export interface ScreeningSubject {
  name: string;
  /** Person or organisation; unknown (absent) skips the kind disambiguator. */
  kind?: 'individual' | 'entity';
  /** ISO 3166-1 alpha-2 (or a country name) of the subject's address or nationality. */
  country?: string;
  /** ISO 8601 date (`1948-12-10`) or its year or month prefix. */
  dateOfBirth?: string;
  identifiers?: { type?: string; value: string }[];
}

/** One name of an entry, prepared once per list version: its parts as ids into the index's part table. */
interface IndexedName {
  entry: number;
  name: string;
  parts: number[];
  joined: string;
  sorted: string;
}

/** A loaded list version prepared for matching: built once per process and version. */
export interface ListIndex {
  list: string;
  versionId: string;
  entries: readonly ListEntry[];
  names: IndexedName[];
  /** Every distinct name part of the list and its Soundex code. */
  parts: string[];
  codes: string[];
  /** Initial letter -> the ids of the parts with that initial. */
  byInitial: Map<string, number[]>;
  /** Part id -> indexes into `names` holding that part. */
  byPart: number[][];
}

/** Which disambiguator changed a name's score and how (docs/screening.md "Matching"). */
export type Disambiguator =
  | 'date_of_birth_matches' | 'date_of_birth_differs' | 'country_matches' | 'country_differs'
  | 'identifier_matches' | 'identifier_differs' | 'kind_differs';

/** One list entry whose score reached the minimum. Scores are 0..1, rounded to 4 decimals. */
export interface MatchHit {
  list: string;
  versionId: string;
  entry: ListEntry;
  /** The entry's name that scored best, as the list writes it. */
  matchedName: string;
  /** The name score before disambiguators. */
  nameScore: number;
  score: number;
  disambiguators: Disambiguator[];
  /** Same name after normalisation and a matching identifier or full date of birth: refused without review. */
  confirmed: boolean;
  /** Why, in words: the scores and the disambiguators applied. */
  reason: string;
}

/** The part score a name's closest part must reach against a query part for the name to be compared at all. */
export const PREFILTER_PART_SCORE = 0.8;

const round = (x: number) => Math.round(x * 10_000) / 10_000;
const code = (t: string) => (/^[a-z]/.test(t) ? soundex(t) : t);

function prepare(name: string) {
  const tokens = nameTokens(normalizeName(name));
  return { tokens, codes: tokens.map(code), joined: tokens.join(' '), sorted: [...tokens].sort().join(' ') };
}

/** Builds the index of one list version's entries. */
export function buildIndex(list: string, versionId: string, entries: readonly ListEntry[]): ListIndex {
  const names: IndexedName[] = [];
  const byInitial = new Map<string, number[]>();
  const partIds = new Map<string, number>();
  const parts: string[] = [];
  const codes: string[] = [];
  const byPart: number[][] = [];
  entries.forEach((e, entry) => {
    for (const n of e.names) {
      const p = prepare(n.name);
      if (p.tokens.length === 0) continue;
      const ids = p.tokens.map((t) => {
        let id = partIds.get(t);
        if (id === undefined) {
          id = parts.push(t) - 1;
          codes.push(code(t));
          partIds.set(t, id);
          byPart.push([]);
          const slot = byInitial.get(t[0]!);
          if (slot) slot.push(id);
          else byInitial.set(t[0]!, [id]);
        }
        return id;
      });
      const at = names.push({ entry, name: n.name, parts: ids, joined: p.joined, sorted: p.sorted }) - 1;
      for (const id of new Set(ids)) byPart[id]!.push(at);
    }
  });
  return { list, versionId, entries, names, parts, codes, byInitial, byPart };
}

/** Jaro-Winkler of two name parts, lowered by a tenth when their Soundex codes differ. */
function partScore(a: string, ca: string, b: string, cb: string): number {
  if (a === b) return 1;
  const jw = jaroWinkler(a, b);
  return ca === cb ? jw : jw * 0.9;
}

/** The mean best part score of the rows of `m` (a rows x columns matrix of part scores) against its columns, each column used once. */
function coverage(m: number[][], rows: number, cols: number, transpose: boolean): number {
  const used = new Set<number>();
  let sum = 0;
  for (let i = 0; i < rows; i++) {
    let best = 0;
    let at = -1;
    for (let j = 0; j < cols; j++) {
      if (used.has(j)) continue;
      const s = transpose ? m[j]![i]! : m[i]![j]!;
      if (s > best) [best, at] = [s, j];
    }
    if (at >= 0) used.add(at);
    sum += best;
  }
  return sum / rows;
}

/** The name-part score of a query against one name: both directions' coverage, weighted by their number of parts. */
function partsScore(pair: (qi: number, part: number) => number, nq: number, n: IndexedName): number {
  const m = Array.from({ length: nq }, (_, qi) => n.parts.map((p) => pair(qi, p)));
  const nc = n.parts.length;
  return (coverage(m, nq, nc, false) * nq + coverage(m, nc, nq, true) * nc) / (nq + nc);
}

/** Whether a date of birth the list gives (`1948`, `1948-12`, `1948-12-10`) fits the subject's. */
const datesFit = (listed: string, subject: string) => listed.startsWith(subject) || subject.startsWith(listed);

/** Applies date of birth, country, kind and identifiers to a name score (docs/screening.md "Matching"). */
function disambiguate(entry: ListEntry, subject: ScreeningSubject, score: number): { score: number; applied: Disambiguator[]; strong: boolean } {
  const applied: Disambiguator[] = [];
  let strong = false;
  const isPerson = entry.kind === 'individual';
  if (subject.kind && (subject.kind === 'individual') !== isPerson) {
    score *= 0.85;
    applied.push('kind_differs');
  }
  if (subject.dateOfBirth && isPerson && entry.datesOfBirth.length > 0) {
    if (entry.datesOfBirth.some((d) => datesFit(d, subject.dateOfBirth!))) {
      applied.push('date_of_birth_matches');
      strong = entry.datesOfBirth.includes(subject.dateOfBirth) && subject.dateOfBirth.length === 10;
      score = Math.min(1, score + 0.03);
    } else {
      applied.push('date_of_birth_differs');
      score *= 0.75;
    }
  }
  const country = countryCode(subject.country);
  if (country && entry.countries.length > 0) {
    if (entry.countries.includes(country)) {
      applied.push('country_matches');
      score = Math.min(1, score + 0.02);
    } else {
      applied.push('country_differs');
      score *= 0.92;
    }
  }
  if (subject.identifiers?.length && entry.identifiers.length > 0) {
    const listed = new Set(entry.identifiers.map((i) => normalizeIdentifier(i.value)));
    if (subject.identifiers.some((i) => listed.has(normalizeIdentifier(i.value)))) {
      applied.push('identifier_matches');
      strong = true;
      score = Math.min(1, score + 0.05);
    } else if (subject.identifiers.some((i) => i.type && entry.identifiers.some((l) => l.type === i.type))) {
      applied.push('identifier_differs');
      score *= 0.8;
    }
  }
  return { score, applied, strong };
}

/** The entries whose best name scores at least `minScore` after disambiguators, best first, one hit per entry. */
export function matchSubject(index: ListIndex, subject: ScreeningSubject, minScore: number): MatchHit[] {
  const q = prepare(subject.name);
  if (q.tokens.length === 0) return [];
  // Part scores are computed once per query part and list part (lists repeat parts across names).
  const cache = q.tokens.map(() => new Float64Array(index.parts.length).fill(-1));
  const pair = (qi: number, part: number) => {
    const row = cache[qi]!;
    if (row[part]! < 0) row[part] = partScore(q.tokens[qi]!, q.codes[qi]!, index.parts[part]!, index.codes[part]!);
    return row[part]!;
  };
  // Prefilter (OFAC's first letter, then a close part): a part sharing an initial and scoring PREFILTER_PART_SCORE.
  const candidates = new Set<number>();
  q.tokens.forEach((t, qi) => {
    for (const part of index.byInitial.get(t[0]!) ?? []) if (pair(qi, part) >= PREFILTER_PART_SCORE) for (const at of index.byPart[part]!) candidates.add(at);
  });
  // A disambiguator raises a score by at most 0.1: names further below cannot reach the minimum.
  const floor = minScore - 0.1;
  const best = new Map<number, { name: IndexedName; score: number }>();
  for (const at of candidates) {
    const n = index.names[at]!;
    if (n.joined.length * 2 < q.joined.length || q.joined.length * 2 < n.joined.length) continue; // OFAC's length prefilter
    let s: number;
    if (q.joined === n.joined || q.sorted === n.sorted) s = 1;
    else {
      const parts = partsScore(pair, q.tokens.length, n);
      if ((1 + parts) / 2 < floor) continue;
      const whole = Math.max(jaroWinkler(q.joined, n.joined), jaroWinkler(q.sorted, n.sorted));
      s = (whole + parts) / 2;
    }
    if (s < floor) continue;
    const prev = best.get(n.entry);
    if (!prev || s > prev.score) best.set(n.entry, { name: n, score: s });
  }
  const hits: MatchHit[] = [];
  for (const [i, { name, score }] of best) {
    const entry = index.entries[i]!;
    const d = disambiguate(entry, subject, score);
    if (d.score < minScore) continue;
    hits.push({
      list: index.list,
      versionId: index.versionId,
      entry,
      matchedName: name.name,
      nameScore: round(score),
      score: round(d.score),
      disambiguators: d.applied,
      confirmed: score === 1 && d.strong,
      reason:
        `name "${name.name}" scored ${round(score)} (Jaro-Winkler whole name and per name part with Soundex)` +
        (d.applied.length ? `; ${d.applied.join(', ')}: ${round(d.score)}` : ''),
    });
  }
  return hits.sort((a, b) => b.score - a.score || a.entry.id.localeCompare(b.entry.id));
}
