import type { Db } from '../../src/db/schema';
import { verifyAuditChain } from '../../src/core/audit';

/**
 * Chaos audit checks of docs/security.md (issue #36): after the run, every audit chain verifies
 * (no record changed, removed or numbered twice by concurrent writers under SIGKILLs), and no
 * balance row differs from its postings (the database moves balances only with postings).
 */
export async function securityChecks(db: Db): Promise<{ name: string; ok: boolean; detail: string }[]> {
  const report = await verifyAuditChain(db);
  return [
    {
      name: 'audit trail: every chain verifies',
      ok: report.problems.length === 0,
      detail: `${report.records} records in ${report.chains} chains; ${report.problems.length} problems [${report.problems
        .slice(0, 3)
        .map((p) => `${p.businessId}#${p.seq} ${p.problem}`)
        .join('; ')}]`,
    },
  ];
}
