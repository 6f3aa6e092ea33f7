/**
 * Business days of the `ach_usd` rail (docs/rails-ach.md "Federal Reserve holidays"): the
 * Federal Reserve (FedACH) settles on weekdays except the holidays it observes (source:
 * federalreserve.gov, "Holidays Observed by the Federal Reserve System", K.8): New Year's Day
 * (1 January), Martin Luther King Jr.'s Birthday (3rd Monday of January), Washington's Birthday
 * (3rd Monday of February), Memorial Day (last Monday of May), Juneteenth National Independence Day
 * (19 June), Independence Day (4 July), Labor Day (1st Monday of September), Columbus Day (2nd
 * Monday of October), Veterans Day (11 November), Thanksgiving Day (4th Thursday of November) and
 * Christmas Day (25 December). A holiday on a Sunday is observed the Monday after; one on a Saturday
 * is not moved (the Federal Reserve is open the Friday before). The rules are given to `date-holidays`
 * (a maintained holiday library) explicitly, as src/rails/target2.ts does. Pure: no I/O.
 */
import Holidays from 'date-holidays';

/** The `date-holidays` rules of the Federal Reserve holidays (see the module comment). */
export const FED_HOLIDAY_RULES: ReadonlyArray<{ rule: string; name: string }> = [
  { rule: '01-01 if sunday then next monday', name: "New Year's Day" },
  { rule: '3rd monday in January', name: "Birthday of Martin Luther King, Jr." },
  { rule: '3rd monday in February', name: "Washington's Birthday" },
  { rule: 'monday before 06-01', name: 'Memorial Day' },
  { rule: '06-19 if sunday then next monday', name: 'Juneteenth National Independence Day' },
  { rule: '07-04 if sunday then next monday', name: 'Independence Day' },
  { rule: '1st monday in September', name: 'Labor Day' },
  { rule: '2nd monday in October', name: 'Columbus Day' },
  { rule: '11-11 if sunday then next monday', name: 'Veterans Day' },
  { rule: '4th thursday in November', name: 'Thanksgiving Day' },
  { rule: '12-25 if sunday then next monday', name: 'Christmas Day' },
];

const fed = new Holidays();
for (const { rule, name } of FED_HOLIDAY_RULES) fed.setHoliday(rule, { name, type: 'public' });

const byYear = new Map<number, Map<string, string>>();

/** The Federal Reserve holidays of `year`: `YYYY-MM-DD` (the day observed) -> name. */
export function fedHolidays(year: number): ReadonlyMap<string, string> {
  let days = byYear.get(year);
  if (!days) {
    days = new Map(fed.getHolidays(year).map((h) => [h.date.slice(0, 10), h.name]));
    byYear.set(year, days);
  }
  return days;
}

/** Checks `day` is a real `YYYY-MM-DD` calendar day; throws a RangeError otherwise. */
function checkDay(day: string): Date {
  const noon = new Date(`${day}T12:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(noon.getTime()) || noon.toISOString().slice(0, 10) !== day) {
    throw new RangeError(`"${day}" is not a YYYY-MM-DD date`);
  }
  return noon;
}

/**
 * Whether the Federal Reserve settles ACH on calendar day `day` (`YYYY-MM-DD`): a Monday to Friday
 * that is not a holiday it observes. Throws a RangeError when `day` is not a `YYYY-MM-DD` date.
 */
export function isFedBusinessDay(day: string): boolean {
  const noon = checkDay(day);
  const weekday = noon.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !fedHolidays(noon.getUTCFullYear()).has(day);
}

/** The calendar day after `day` (`YYYY-MM-DD`). */
function nextDay(day: string): string {
  const d = checkDay(day);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * The first Federal Reserve business day strictly after `day` (`YYYY-MM-DD`). Throws a RangeError
 * when `day` is not a `YYYY-MM-DD` date.
 */
export function nextFedBusinessDay(day: string): string {
  let d = nextDay(day);
  while (!isFedBusinessDay(d)) d = nextDay(d);
  return d;
}

/** `YYYY-MM-DD` of `date` in `timeZone` (IANA) and the minutes since local midnight. */
function localParts(date: Date, timeZone: string): { day: string; minutes: number } {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(date)
      .map((x) => [x.type, x.value]),
  );
  return { day: `${p.year}-${p.month}-${p.day}`, minutes: Number(p.hour) * 60 + Number(p.minute) };
}

/**
 * The effective entry date of an ACH file sent at `at`. `sameDayCutOff` is `HH:MM` in `timeZone`
 * (IANA), or null when same-day ACH is not used. When the local date of `at` in `timeZone` is a
 * Federal Reserve business day and `at` is before the cut-off: that day, window `same_day`;
 * otherwise (after the cut-off, on a closed day, or without same-day ACH) the first business day
 * strictly after the local date, window `next_day`. Throws a RangeError on an invalid `at`, an
 * unknown `timeZone` or a cut-off that is not `HH:MM`.
 */
export function achEffectiveDate(at: Date, opts: { sameDayCutOff: string | null; timeZone: string }): { effectiveDate: string; window: 'same_day' | 'next_day' } {
  if (Number.isNaN(at.getTime())) throw new RangeError('at is not a valid Date');
  const local = localParts(at, opts.timeZone);
  if (opts.sameDayCutOff !== null) {
    const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(opts.sameDayCutOff);
    if (!m) throw new RangeError(`sameDayCutOff "${opts.sameDayCutOff}" is not HH:MM`);
    if (isFedBusinessDay(local.day) && local.minutes < Number(m[1]) * 60 + Number(m[2])) return { effectiveDate: local.day, window: 'same_day' };
  }
  return { effectiveDate: nextFedBusinessDay(local.day), window: 'next_day' };
}

/** Offset (local minus UTC, in minutes) of `timeZone` at instant `ms`. */
function offsetMinutes(ms: number, timeZone: string): number {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(ms))
      .map((x) => [x.type, x.value]),
  );
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/**
 * When the Federal Reserve settles ACH entries with effective date `day` (`YYYY-MM-DD`): 17:00
 * America/New_York that day (EST or EDT as the date has it), as a Date. Throws a RangeError when
 * `day` is not a `YYYY-MM-DD` date.
 */
export function achSettlementTime(day: string): Date {
  checkDay(day);
  const wall = Date.parse(`${day}T17:00:00Z`);
  let utc = wall - offsetMinutes(wall, 'America/New_York') * 60_000;
  utc = wall - offsetMinutes(utc, 'America/New_York') * 60_000;
  return new Date(utc);
}
