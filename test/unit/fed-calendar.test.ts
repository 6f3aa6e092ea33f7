/**
 * Holiday source: federalreserve.gov, "Holidays Observed by the Federal Reserve System" (K.8). A
 * holiday on a Sunday is observed the Monday after; one on a Saturday is not moved (the Federal
 * Reserve is open the Friday before).
 */
import { describe, expect, it } from 'vitest';
import { achEffectiveDate, achSettlementTime, fedHolidays, isFedBusinessDay, nextFedBusinessDay } from '../../src/rails/fed-calendar';

const NY = { sameDayCutOff: '14:45', timeZone: 'America/New_York' };

describe('Federal Reserve calendar (federalreserve.gov K.8)', () => {
  it('has the eleven holidays of 2027, Sunday ones observed on Monday', () => {
    expect([...fedHolidays(2027).keys()]).toEqual([
      '2027-01-01', // New Year's Day (Friday)
      '2027-01-18', // Martin Luther King Jr.'s Birthday, 3rd Monday of January
      '2027-02-15', // Washington's Birthday, 3rd Monday of February
      '2027-05-31', // Memorial Day, last Monday of May
      '2027-06-19', // Juneteenth (a Saturday: not moved)
      '2027-07-05', // Independence Day (4 July is a Sunday -> Monday 5 July)
      '2027-09-06', // Labor Day
      '2027-10-11', // Columbus Day, 2nd Monday of October
      '2027-11-11', // Veterans Day
      '2027-11-25', // Thanksgiving, 4th Thursday of November
      '2027-12-25', // Christmas (a Saturday: not moved)
    ]);
  });

  it('Sunday holiday observed Monday; Saturday holiday not moved', () => {
    // 2027-07-04 is a Sunday: closed on Monday 2027-07-05
    expect(isFedBusinessDay('2027-07-04')).toBe(false);
    expect(isFedBusinessDay('2027-07-05')).toBe(false);
    expect(isFedBusinessDay('2027-07-06')).toBe(true);
    // 2026-07-04 is a Saturday: Friday 2026-07-03 is open, and so is Monday 2026-07-06
    expect(isFedBusinessDay('2026-07-03')).toBe(true);
    expect(isFedBusinessDay('2026-07-06')).toBe(true);
    // Christmas 2027 and New Year 2028 are Saturdays: Fridays 2027-12-24 and 2027-12-31 open
    expect(isFedBusinessDay('2027-12-24')).toBe(true);
    expect(isFedBusinessDay('2027-12-31')).toBe(true);
    // New Year 2023 was a Sunday: closed Monday 2023-01-02
    expect(isFedBusinessDay('2023-01-02')).toBe(false);
  });

  it('Juneteenth, Thanksgiving, Memorial Day, Veterans Day and weekends', () => {
    expect(isFedBusinessDay('2026-06-19')).toBe(false); // Juneteenth, a Friday
    expect(nextFedBusinessDay('2026-06-18')).toBe('2026-06-22');
    expect(isFedBusinessDay('2026-11-26')).toBe(false); // Thanksgiving, 4th Thursday
    expect(isFedBusinessDay('2026-11-27')).toBe(true); // the Friday after is open
    expect(isFedBusinessDay('2026-05-25')).toBe(false); // Memorial Day, last Monday of May
    expect(isFedBusinessDay('2026-11-11')).toBe(false); // Veterans Day, a Wednesday
    expect(isFedBusinessDay('2026-11-28')).toBe(false); // Saturday
    expect(isFedBusinessDay('2026-11-29')).toBe(false); // Sunday
    expect(isFedBusinessDay('2026-12-01')).toBe(true);
  });

  it('nextFedBusinessDay is strictly after, skipping weekends and holidays', () => {
    expect(nextFedBusinessDay('2027-01-15')).toBe('2027-01-19'); // Fri -> (Sat, Sun, MLK Mon) -> Tue
    expect(nextFedBusinessDay('2026-11-25')).toBe('2026-11-27'); // over Thanksgiving
    expect(nextFedBusinessDay('2026-12-24')).toBe('2026-12-28'); // over Christmas (Fri) and the weekend
    expect(nextFedBusinessDay('2026-12-01')).toBe('2026-12-02');
  });

  it('throws a RangeError on a day that is not YYYY-MM-DD', () => {
    expect(() => isFedBusinessDay('2027-02-30')).toThrow(RangeError);
    expect(() => nextFedBusinessDay('27-01-15')).toThrow(RangeError);
  });
});

describe('achEffectiveDate', () => {
  it('Friday 2027-01-15 after the cut-off, before MLK Day: Tuesday 2027-01-19, next_day', () => {
    expect(achEffectiveDate(new Date('2027-01-15T20:30:00Z'), NY)).toEqual({ effectiveDate: '2027-01-19', window: 'next_day' });
  });

  it('the same Friday before the cut-off: that day, same_day', () => {
    expect(achEffectiveDate(new Date('2027-01-15T19:44:00Z'), NY)).toEqual({ effectiveDate: '2027-01-15', window: 'same_day' }); // 14:44 EST
    expect(achEffectiveDate(new Date('2027-01-15T19:45:00Z'), NY)).toEqual({ effectiveDate: '2027-01-19', window: 'next_day' }); // 14:45 EST: at the cut-off
  });

  it('without same-day ACH, always the next business day', () => {
    expect(achEffectiveDate(new Date('2027-01-15T14:00:00Z'), { sameDayCutOff: null, timeZone: 'America/New_York' })).toEqual({ effectiveDate: '2027-01-19', window: 'next_day' });
  });

  it('on a holiday or weekend before the cut-off: the next business day', () => {
    expect(achEffectiveDate(new Date('2027-01-18T15:00:00Z'), NY)).toEqual({ effectiveDate: '2027-01-19', window: 'next_day' }); // MLK Day
    expect(achEffectiveDate(new Date('2026-11-26T15:00:00Z'), NY)).toEqual({ effectiveDate: '2026-11-27', window: 'next_day' }); // Thanksgiving
    expect(achEffectiveDate(new Date('2026-06-19T13:00:00Z'), NY)).toEqual({ effectiveDate: '2026-06-22', window: 'next_day' }); // Juneteenth
  });

  it('uses the local date of the time zone (UTC already the next day)', () => {
    // 2027-01-15 02:00 UTC is Thursday 21:00 in New York: after the cut-off -> Friday
    expect(achEffectiveDate(new Date('2027-01-15T02:00:00Z'), NY)).toEqual({ effectiveDate: '2027-01-15', window: 'next_day' });
  });

  it('crosses the DST change: the same UTC instant is before the cut-off in EST, after it in EDT', () => {
    // DST ends Sunday 2026-11-01. 19:30 UTC is 15:30 EDT on Friday 2026-10-30 (after 14:45) ...
    expect(achEffectiveDate(new Date('2026-10-30T19:30:00Z'), NY)).toEqual({ effectiveDate: '2026-11-02', window: 'next_day' });
    // ... and 14:30 EST on Monday 2026-11-02 (before 14:45)
    expect(achEffectiveDate(new Date('2026-11-02T19:30:00Z'), NY)).toEqual({ effectiveDate: '2026-11-02', window: 'same_day' });
    // DST starts Sunday 2027-03-14: 18:50 UTC is 13:50 EST on Friday 03-12 and 14:50 EDT on Monday 03-15
    expect(achEffectiveDate(new Date('2027-03-12T18:50:00Z'), NY)).toEqual({ effectiveDate: '2027-03-12', window: 'same_day' });
    expect(achEffectiveDate(new Date('2027-03-15T18:50:00Z'), NY)).toEqual({ effectiveDate: '2027-03-16', window: 'next_day' });
  });

  it('throws a RangeError on a cut-off that is not HH:MM', () => {
    expect(() => achEffectiveDate(new Date('2027-01-15T12:00:00Z'), { sameDayCutOff: '2:45pm', timeZone: 'America/New_York' })).toThrow(RangeError);
  });
});

describe('achSettlementTime', () => {
  it('is 17:00 New York: 22:00 UTC in EST, 21:00 UTC in EDT, across both DST changes', () => {
    expect(achSettlementTime('2027-03-12').toISOString()).toBe('2027-03-12T22:00:00.000Z'); // EST
    expect(achSettlementTime('2027-03-15').toISOString()).toBe('2027-03-15T21:00:00.000Z'); // EDT
    expect(achSettlementTime('2026-10-30').toISOString()).toBe('2026-10-30T21:00:00.000Z'); // EDT
    expect(achSettlementTime('2026-11-02').toISOString()).toBe('2026-11-02T22:00:00.000Z'); // EST
    expect(achSettlementTime('2027-01-19').toISOString()).toBe('2027-01-19T22:00:00.000Z');
  });
});
