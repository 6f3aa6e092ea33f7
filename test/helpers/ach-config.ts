/**
 * An ACH rail configuration for tests that call the ACH core directly (no SFTP is opened):
 * the test bank's ODFI routing and company id, a 14:45 New York same-day cut-off, and
 * RAIL_ACH_SETTLE_AFTER `settleAfterMs` (null: the Fed's settlement times).
 */
import type { AchRailConfig } from '../../src/rails/ach/config';

export function testAchConfig(overrides: Partial<AchRailConfig> = {}): AchRailConfig {
  return {
    sftp: { host: '127.0.0.1', port: 22, username: 'u', privateKeyPath: '/dev/null', hostKeySha256: 'SHA256:x' },
    uploadDir: 'inbox',
    downloadDir: 'outbox',
    odfiRouting: '091000019',
    odfiName: 'TEST BANK',
    companyId: '1463201458',
    companyName: 'PAYOUTS',
    entryDescription: 'PAYOUT',
    sameDayCutOff: '14:45',
    timeZone: 'America/New_York',
    batchWindowMs: 900_000,
    maxFileTransactions: 10_000,
    pollIntervalMs: 60_000,
    returnWindowMs: 60 * 86_400_000,
    settleAfterMs: null,
    virtualAccountRange: null,
    ...overrides,
  };
}
