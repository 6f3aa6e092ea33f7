/** TARGET2 business days (docs/rails.md "Cut-offs and closing days"), Easter days from `date-holidays`. Pure. */
import type Holidays from 'date-holidays';
import { lazyPackage } from '../lazy-package';

/** The closing days' calendar; `date-holidays` is loaded at the first use (docs/operations.md "Idle cost"). */
const closing = lazyPackage<typeof Holidays, Holidays>('date-holidays', (DateHolidays) => {
  const calendar = new DateHolidays();
  for (const rule of ['01-01', 'easter -2', 'easter 1', '05-01', '12-25', '12-26']) calendar.setHoliday(rule, { name: `TARGET2 closed (${rule})`, type: 'public' });
  return calendar;
});

function localParts(date: Date, timeZone: string): { day: string; weekday: number; minutes: number } {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23', weekday: 'short' })
      .formatToParts(date)
      .map((p) => [p.type, p.value]),
  );
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(parts.weekday!);
  return { day: `${parts.year}-${parts.month}-${parts.day}`, weekday, minutes: Number(parts.hour) * 60 + Number(parts.minute) };
}

export function isTarget2BusinessDay(day: string): boolean {
  const noon = new Date(`${day}T12:00:00Z`);
  const weekday = noon.getUTCDay();
  if (weekday === 0 || weekday === 6) return false;
  return !closing().isHoliday(new Date(`${day}T00:00:00Z`));
}

function nextDay(day: string): string {
  const d = new Date(`${day}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

export function target2BusinessDayFrom(day: string): string {
  let d = day;
  while (!isTarget2BusinessDay(d)) d = nextDay(d);
  return d;
}

/** The requested execution date of a file sent at `at`: today if a business day before `cutOff`, else the next one. */
export function executionDate(at: Date, cutOff: string, timeZone: string): string {
  const local = localParts(at, timeZone);
  const [h, m] = cutOff.split(':').map(Number) as [number, number];
  if (isTarget2BusinessDay(local.day) && local.minutes < h * 60 + m) return local.day;
  return target2BusinessDayFrom(nextDay(local.day));
}

/** SEPA's D+1: 23:59:59 UTC of the business day after the execution date. */
export function sepaLatestArrival(at: Date, cutOff: string, timeZone: string): Date {
  const execution = executionDate(at, cutOff, timeZone);
  return new Date(`${target2BusinessDayFrom(nextDay(execution))}T23:59:59Z`);
}
