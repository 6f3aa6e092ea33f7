/**
 * Federal Reserve business days of the `ach_usd` rail (docs/rails-ach.md "Federal Reserve
 * holidays", source federalreserve.gov K.8): a Sunday holiday is observed on Monday, a Saturday one
 * is not moved. The rules are given to `date-holidays` explicitly. Pure.
 */
import type Holidays from 'date-holidays';
import { lazyPackage } from '../lazy-package';

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

/** The rules' calendar; `date-holidays` (about 7 MB of heap) is loaded at the first use (docs/operations.md "Idle cost"). */
const fed = lazyPackage<typeof Holidays, Holidays>('date-holidays', (DateHolidays) => {
  const calendar = new DateHolidays();
  for (const { rule, name } of FED_HOLIDAY_RULES) calendar.setHoliday(rule, { name, type: 'public' });
  return calendar;
});

const byYear = new Map<number, Map<string, string>>();

/** The Federal Reserve holidays of `year`: `YYYY-MM-DD` (the day observed) -> name. */
export function fedHolidays(year: number): ReadonlyMap<string, string> {
  let days = byYear.get(year);
  if (!days) {
    days = new Map(fed().getHolidays(year).map((h) => [h.date.slice(0, 10), h.name]));
    byYear.set(year, days);
  }
  return days;
}

function checkDay(day: string): Date {
  const noon = new Date(`${day}T12:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(noon.getTime()) || noon.toISOString().slice(0, 10) !== day) {
    throw new RangeError(`"${day}" is not a YYYY-MM-DD date`);
  }
  return noon;
}

/** Whether FedACH settles on `day` (`YYYY-MM-DD`): a weekday that is not a holiday. RangeError for a bad day. */
export function isFedBusinessDay(day: string): boolean {
  const noon = checkDay(day);
  const weekday = noon.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !fedHolidays(noon.getUTCFullYear()).has(day);
}

function nextDay(day: string): string {
  const d = checkDay(day);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/** The first Fed business day strictly after `day`. RangeError for a bad day. */
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
 * The effective entry date of an ACH file sent at `at`: its local day in `timeZone` (`same_day`) when
 * that is a business day and `at` is before `sameDayCutOff` (`HH:MM`, null: no same-day ACH), else
 * the next business day (`next_day`). RangeError on a bad instant, zone or cut-off.
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

function offsetMinutes(ms: number, timeZone: string): number {
  const p = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })
      .formatToParts(new Date(ms))
      .map((x) => [x.type, x.value]),
  );
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((asUtc - Math.floor(ms / 1000) * 1000) / 60_000);
}

/** 17:00 America/New_York on effective date `day`: when FedACH settles it. RangeError for a bad day. */
export function achSettlementTime(day: string): Date {
  checkDay(day);
  const wall = Date.parse(`${day}T17:00:00Z`);
  let utc = wall - offsetMinutes(wall, 'America/New_York') * 60_000;
  utc = wall - offsetMinutes(utc, 'America/New_York') * 60_000;
  return new Date(utc);
}
