/** The screening seam's shapes: every list module parses its files into {@link ListEntry} records and never touches the database (docs/screening.md "Lists"). */
import { z } from 'zod';
import type { SeamModule } from '../seams/module';

/** What a list entry designates, in the lists' own terms mapped onto one set. */
export type EntryKind = 'individual' | 'entity' | 'vessel' | 'aircraft';

/** One name of an entry: the primary name or an alias (`aka`, `fka`, `nka`; OFAC's weak aliases are `weak_aka`). */
export interface EntryName {
  name: string;
  type: 'primary' | 'aka' | 'fka' | 'nka' | 'weak_aka';
}

/** An identity document or register number of an entry (`passport`, `national_id`, `tax_id`, `imo`, ...). */
export interface EntryIdentifier {
  type: string;
  value: string;
}

/** One designation: dates of birth are ISO 8601 prefixes as precise as the list (`1948`, `1948-12-10`), countries ISO 3166-1 alpha-2. */
export interface ListEntry {
  /** The list's own id of the entry (OFAC `ent_num`, EU `logicalId`, UN `DATAID`, UK `UniqueID`). */
  id: string;
  kind: EntryKind;
  names: EntryName[];
  datesOfBirth: string[];
  countries: string[];
  identifiers: EntryIdentifier[];
  /** Sanctions programmes or regimes (`CUBA`, `SDGT`). */
  programs: string[];
}

/** A list as parsed from its files: its entries and its publication time when the files carry one. */
export interface ParsedList {
  publishedAt: Date | null;
  entries: ListEntry[];
}

/** A list's files as fetched or read: file name -> content (UTF-8 text). */
export type ListFiles = ReadonlyMap<string, string>;

/** Thrown by a list module when its files are not in the documented shape. */
export class ListFormatError extends Error {
  override readonly name = 'ListFormatError';
}

/** Where one list comes from and how fresh it must be: the parsed values of a list module's settings (see {@link listSourceSettings}). */
export interface ListSourceConfig {
  /** Single-file lists: the file's URL; multi-file lists (OFAC CSV): the base URL the file names are appended to. */
  url?: string;
  /** A directory holding the list's files under their official names (instead of `url`). */
  dir?: string;
  refreshMinutes: number;
  maxAgeHours: number;
}

/** A sanctions list module: a {@link SeamModule} with its source settings, the official file names it reads and a pure parser. */
export interface ScreeningListModule extends SeamModule {
  readonly title: string;
  /** The official file names the parser reads (`sdn.csv`, ...); the first is required, the rest optional. */
  readonly files: readonly string[];
  /** The names the files have under a multi-file list's base URL, where they differ (OFAC serves `SDN.CSV`). */
  readonly remoteNames?: Readonly<Record<string, string>>;
  /** Parses the files; throws {@link ListFormatError} when they are not in the documented shape. */
  parse(files: ListFiles): ParsedList;
  /** This module's source settings out of the parsed environment. */
  source(env: Record<string, unknown>): ListSourceConfig;
}

/** A list module's `<PREFIX>_URL`, `_DIR`, `_REFRESH_MINUTES`, `_MAX_AGE_HOURS` as a zod raw shape, and the reader of their parsed values. */
export function listSourceSettings(prefix: string, title: string, defaults: { url?: string; refreshMinutes: number; maxAgeHours: number }) {
  const settings = {
    [`${prefix}_URL`]: z
      .string()
      .url()
      .optional()
      .describe(`Where ${title} is downloaded from${defaults.url ? ` (the official address: ${defaults.url})` : ''}; multi-file lists: the base URL the official file names are appended to.`),
    [`${prefix}_DIR`]: z.string().optional().describe(`A directory holding ${title} under its official file names, read instead of the URL (air-gapped deployments, tests).`),
    [`${prefix}_REFRESH_MINUTES`]: z.coerce.number().int().positive().default(defaults.refreshMinutes).describe(`How often ${title} is fetched again, in minutes.`),
    [`${prefix}_MAX_AGE_HOURS`]: z.coerce
      .number()
      .positive()
      .default(defaults.maxAgeHours)
      .describe(`Hours after the last successful fetch of ${title} when screening answers \`unavailable\` (fail closed; docs/screening.md "Fail closed").`),
  } as const;
  const source = (env: Record<string, unknown>): ListSourceConfig => ({
    url: (env[`${prefix}_URL`] as string | undefined) ?? (env[`${prefix}_DIR`] ? undefined : defaults.url),
    dir: env[`${prefix}_DIR`] as string | undefined,
    refreshMinutes: (env[`${prefix}_REFRESH_MINUTES`] as number | undefined) ?? defaults.refreshMinutes,
    maxAgeHours: (env[`${prefix}_MAX_AGE_HOURS`] as number | undefined) ?? defaults.maxAgeHours,
  });
  return { settings, source };
}
