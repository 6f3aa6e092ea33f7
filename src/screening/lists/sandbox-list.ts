/** The built-in sandbox list; its magic names and what each answers: docs/screening.md "Sandbox". */
import type { ParsedList, ScreeningListModule } from '../entry';

/** The built-in sandbox entries (fixed: their content hash never changes). */
export const SANDBOX_LIST: ParsedList = {
  publishedAt: new Date('2026-01-01T00:00:00Z'),
  entries: [
    { id: 'SBX-1', kind: 'individual', names: [{ name: 'SANCTIONED, Sandy', type: 'primary' }], datesOfBirth: ['1960'], countries: ['ZZ'], identifiers: [], programs: ['SANDBOX'] },
    { id: 'SBX-2', kind: 'entity', names: [{ name: 'SANDBOX SANCTIONED TRADING', type: 'primary' }], datesOfBirth: [], countries: [], identifiers: [], programs: ['SANDBOX'] },
    {
      id: 'SBX-3',
      kind: 'individual',
      names: [{ name: 'CONFIRMED, Connor', type: 'primary' }],
      datesOfBirth: ['1970-01-01'],
      countries: [],
      identifiers: [{ type: 'passport', value: 'SBX0000001' }],
      programs: ['SANDBOX'],
    },
  ],
};

/** The sandbox list module (`sandbox`): no files, no variables, never stale. */
export const sandboxList: ScreeningListModule = {
  id: 'sandbox',
  title: 'Sandbox list (built in)',
  settings: {},
  files: [],
  parse: () => SANDBOX_LIST,
  source: () => ({ refreshMinutes: 24 * 60, maxAgeHours: Number.POSITIVE_INFINITY }),
};
