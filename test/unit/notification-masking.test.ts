/** Destinations never reach a provider error text unmasked (docs/notifications.md "Personal data in logs and metrics"). */
import { describe, expect, it } from 'vitest';
import { maskDestination, maskDestinationsIn, NotificationProviderError } from '../../src/core/notifications';

describe('maskDestinationsIn', () => {
  it('masks phone numbers and e-mail addresses inside provider texts', () => {
    expect(maskDestinationsIn("The 'To' number +525512345678 is not a valid phone number.")).toBe(`The 'To' number ${maskDestination('+525512345678')} is not a valid phone number.`);
    expect(maskDestinationsIn('550 5.1.1 <ana.perez@example.com>: Recipient address rejected')).toBe('550 5.1.1 <a•••@example.com>: Recipient address rejected');
    expect(maskDestinationsIn('wa_id 525512345678 failed (131026)')).toBe(`wa_id ${maskDestination('525512345678')} failed (131026)`);
  });

  it('NotificationProviderError masks its message on construction', () => {
    const e = new NotificationProviderError('Twilio refused the message (21211): The To number +525512345678 is invalid', false, 'rejected');
    expect(e.message).not.toContain('+525512345678');
    expect(e.message).toContain('(21211)');
  });
});
