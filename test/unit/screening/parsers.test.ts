/**
 * The list parsers read each list's official shape (docs/screening.md "Lists"): OFAC's CSV set
 * (test/fixtures/screening/ofac-csv: three rows of OFAC's files as published, `-0-` nulls, CRLF and
 * the DOS end-of-file byte), OFAC's XML, the EU, UN and UK XML files (fixtures in their documented
 * shapes, their schema fields named in each file's comment).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ListFormatError } from '../../../src/screening/entry';
import { parseEuFsf } from '../../../src/screening/lists/eu-fsf';
import { parseOfacRemarks } from '../../../src/screening/lists/ofac-remarks';
import { parseOfacSdnCsv } from '../../../src/screening/lists/ofac-sdn-csv';
import { parseOfacSdnXml } from '../../../src/screening/lists/ofac-sdn-xml';
import { parseUkSanctions } from '../../../src/screening/lists/uk-sanctions';
import { parseUnSc } from '../../../src/screening/lists/un-sc';
import { countryCode, isoDate, normalizeName } from '../../../src/screening/normalize';

const FIX = join(import.meta.dirname, '../../fixtures/screening');
const files = (dir: string, ...names: string[]) => new Map(names.map((n) => [n, readFileSync(join(dir, n), 'utf8')]));

describe('OFAC SDN CSV set', () => {
  const list = parseOfacSdnCsv(files(join(FIX, 'ofac-csv'), 'sdn.csv', 'add.csv', 'alt.csv'));

  it('reads sdn.csv, add.csv and alt.csv in the official column order, -0- as null', () => {
    expect(list.publishedAt).toBeNull();
    expect(list.entries.map((e) => e.id)).toEqual(['36', '306', '2676']);
    const bnc = list.entries.find((e) => e.id === '306')!;
    expect(bnc).toMatchObject({ kind: 'entity', programs: ['CUBA'], names: [{ name: 'BANCO NACIONAL DE CUBA', type: 'primary' }, { name: 'NATIONAL BANK OF CUBA', type: 'aka' }] });
    expect(bnc.countries).toContain('CH'); // add.csv: Zurich, Switzerland
    const zawahiri = list.entries.find((e) => e.id === '2676')!;
    expect(zawahiri).toMatchObject({ kind: 'individual', datesOfBirth: ['1951-06-19'], programs: ['SDGT'] });
    expect(zawahiri.countries).toContain('EG'); // POB Giza, Egypt
    expect(zawahiri.identifiers).toEqual([{ type: 'passport', value: '1084010' }, { type: 'passport', value: '19820215' }]);
  });

  it('refuses a missing sdn.csv and a row that is not in the official layout', () => {
    expect(() => parseOfacSdnCsv(new Map())).toThrow(ListFormatError);
    expect(() => parseOfacSdnCsv(new Map([['sdn.csv', '306,"BANCO NACIONAL DE CUBA","CUBA"\r\n']]))).toThrow(/12/);
  });

  it('reads the facts of OFAC remarks', () => {
    expect(parseOfacRemarks('DOB circa 1960; alt. DOB 1962 to 1964; nationality Iran; Tax ID No. 7744001497 (Russia); Vessel Registration Identification IMO 9187629.')).toEqual({
      datesOfBirth: ['1960', '1962', '1964'],
      countries: ['IR'],
      identifiers: [{ type: 'tax_id', value: '7744001497' }, { type: 'imo', value: '9187629' }],
    });
  });
});

describe('OFAC SDN XML', () => {
  it('reads sdnEntry names, akas (weak ones marked), ids, dates of birth and the publication date', () => {
    const list = parseOfacSdnXml(files(FIX, 'sdn.xml'));
    expect(list.publishedAt?.toISOString()).toBe('2026-11-20T00:00:00.000Z');
    expect(list.entries[0]).toMatchObject({ id: '306', kind: 'entity', countries: ['CH'], names: [{ name: 'BANCO NACIONAL DE CUBA' }, { name: 'NATIONAL BANK OF CUBA', type: 'aka' }] });
    expect(list.entries[1]).toMatchObject({
      id: '2676',
      kind: 'individual',
      names: [{ name: 'AL ZAWAHIRI, Dr. Ayman', type: 'primary' }, { name: 'AL-ZAWAHIRI, Ayman', type: 'weak_aka' }],
      datesOfBirth: ['1951-06-19'],
      identifiers: [{ type: 'passport', value: '1084010' }],
    });
  });
});

describe('EU consolidated financial sanctions XML', () => {
  it('reads nameAlias whole names, subjectType, birthdates, citizenship, identifications and generationDate', () => {
    const list = parseEuFsf(new Map([['eu-fsf.xml', readFileSync(join(FIX, 'eu-fsf.xml'), 'utf8')]]));
    expect(list.publishedAt?.toISOString()).toBe('2026-11-20T09:15:00.000Z');
    expect(list.entries).toEqual([
      {
        id: '9001', kind: 'individual', names: [{ name: 'Ivan Petrovich Testov', type: 'primary' }, { name: 'Иван Петрович Тестов', type: 'aka' }],
        datesOfBirth: ['1965-03-14'], countries: ['RU'], identifiers: [{ type: 'passport', value: '751234567' }], programs: ['TEST'],
      },
      { id: '9002', kind: 'entity', names: [{ name: 'Northwind Shipping Trust', type: 'primary' }], datesOfBirth: [], countries: ['CY'], identifiers: [], programs: ['TEST'] },
    ]);
  });

  it('refuses a file that is not an export', () => {
    expect(() => parseEuFsf(new Map([['eu-fsf.xml', '<sdnList/>']]))).toThrow(ListFormatError);
    expect(() => parseEuFsf(new Map([['eu-fsf.xml', '<export><sanctionEntity>']]))).toThrow(/well-formed/);
  });
});

describe('UN Security Council consolidated XML', () => {
  it('reads individuals and entities with aliases, nationality, dates of birth and documents', () => {
    const list = parseUnSc(files(FIX, 'consolidated.xml'));
    expect(list.publishedAt?.toISOString()).toBe('2026-11-21T08:00:00.000Z');
    expect(list.entries[0]).toEqual({
      id: '7000001', kind: 'individual',
      names: [{ name: 'KIM TEST SUNG', type: 'primary' }, { name: 'Kim Tes Sung', type: 'aka' }, { name: 'Uncle Kim', type: 'weak_aka' }],
      datesOfBirth: ['1958-07-02', '1959'], countries: ['KP'], identifiers: [{ type: 'passport', value: '0912345' }], programs: ['DPRK'],
    });
    expect(list.entries[1]).toMatchObject({ id: '7000002', kind: 'entity', names: [{ name: 'KORYO TEST TRADING CORPORATION' }, { name: 'Koryo Test Trading' }], countries: ['KP'] });
  });
});

describe('UK Sanctions List XML', () => {
  it('reads designations: Name1..Name6, the dd/mm/yyyy DOB with unknown day, nationality, passport, a ship and its IMO number', () => {
    const list = parseUkSanctions(files(FIX, 'UK_Sanctions_List.xml'));
    expect(list.publishedAt).not.toBeNull();
    expect(list.entries).toEqual([
      {
        id: 'RUS9001', kind: 'individual', names: [{ name: 'Olga TESTOVA', type: 'primary' }, { name: 'Olha TESTOVA', type: 'aka' }],
        datesOfBirth: ['1972-04'], countries: ['RU'], identifiers: [{ type: 'passport', value: '720011223' }], programs: ['Russia'],
      },
      { id: 'RUS9002', kind: 'vessel', names: [{ name: 'SEA TESTER', type: 'primary' }], datesOfBirth: [], countries: [], identifiers: [{ type: 'imo', value: '9123456' }], programs: ['Russia'] },
    ]);
  });
});

describe('normalisation', () => {
  it('transliterates, strips accents and punctuation and turns OFAC "LAST, First" around', () => {
    expect(normalizeName('GARCÍA-LÓPEZ, María')).toBe('maria garcia lopez');
    expect(normalizeName('Иван Петрович Тестов')).toBe('ivan petrovich testov');
    expect(normalizeName("O'Brien & Sons, S.A.")).toBe('s a obrien sons');
  });

  it('maps country names and codes to ISO 3166-1 alpha-2 and dates to ISO prefixes', () => {
    expect([countryCode('Cuba'), countryCode('Russian Federation'), countryCode('GB'), countryCode('Atlantis')]).toEqual(['CU', 'RU', 'GB', null]);
    expect([isoDate('10 Dec 1948'), isoDate('Dec 1948'), isoDate('1948'), isoDate('00/00/1972'), isoDate('05/04/1972')]).toEqual(['1948-12-10', '1948-12', '1948', '1972', '1972-04-05']);
  });
});
