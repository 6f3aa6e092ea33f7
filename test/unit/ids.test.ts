import { describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids';

/** Resource ids sort by creation time (src/domain/ids.ts), also within one millisecond. */
describe('newId', () => {
  it('ids made in the same millisecond sort in the order they were made; a later millisecond sorts after', () => {
    const ms = Date.UTC(2026, 10, 28, 12, 0, 0);
    const same = Array.from({ length: 500 }, () => newId('evt', ms));
    expect([...same].sort()).toEqual(same);
    expect(new Set(same).size).toBe(500);
    const later = newId('evt', ms + 1);
    expect(later > same.at(-1)!).toBe(true);
    expect(later.slice(0, 14)).not.toBe(same[0]!.slice(0, 14));
    expect(same.every((id) => /^evt_[0-9a-hjkmnp-tv-z]{26}$/.test(id))).toBe(true);
  });

  it('an earlier millisecond (a test clock) keeps its own timestamp', () => {
    const a = newId('po', Date.UTC(2026, 10, 28));
    const b = newId('po', Date.UTC(2020, 0, 1));
    expect(b < a).toBe(true);
  });
});
