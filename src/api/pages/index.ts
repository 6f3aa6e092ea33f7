import { registerCardCheckoutPage } from './card-checkout';
import type { Hono } from 'hono';
import type { AppEnv } from '../types';
import { registerClaimPage } from './claim';
import { registerReceiptPage } from './receipt';
import { registerPaymentLinkPage } from './payment-link';

/** Public HTML pages (no API key): receipts, claim pages. Each page module registers here. */
export function registerPages(app: Hono<AppEnv>): void {
  registerReceiptPage(app);
  registerClaimPage(app);
  registerCardCheckoutPage(app);
  registerPaymentLinkPage(app);
}
