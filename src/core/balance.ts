/** Balance (`GET /balance`) and sandbox funding (`POST /sandbox/fund`); every change is a ledger posting. */
import { ApiError, validationError } from '../domain/errors';
import { randomToken } from '../domain/ids';
import type { Balance } from '../domain/balance';
import { parseAmountParam, parseAmount, USDC } from '../domain/money';
import type { Caller, Core } from './context';
import { getBalance, post } from './ledger';


/** Largest single sandbox funding, in USDC. */
export const MAX_SANDBOX_FUNDING_USDC = '10000000';

/** Micro-USDC. */
export async function getBalanceView(core: Core, caller: Caller): Promise<Balance> {
  const b = await getBalance(core.db, caller.businessId, caller.environment);
  return { available: { minor: b.available, currency: USDC }, held: { minor: b.held, currency: USDC }, reserve: { minor: b.reserve, currency: USDC } };
}

/**
 * Credits the sandbox balance with `amount` (USDC decimal string), posting key `fund:<idempotency
 * key>` (exactly once). Errors: 404 in live; 400 validation_error (param `param`).
 */
export async function fundSandbox(
  core: Core,
  caller: Caller,
  amount: unknown,
  opts: { idempotencyKey?: string; param?: string } = {},
): Promise<Balance> {
  if (caller.environment !== 'sandbox') throw new ApiError(404, 'not_found', 'Sandbox funding exists only in the sandbox', null);
  const param = opts.param ?? 'amount';
  const minor = parseAmountParam(amount, USDC, param);
  if (minor > parseAmount(MAX_SANDBOX_FUNDING_USDC, USDC)) {
    throw validationError(param, `${param} must be at most ${MAX_SANDBOX_FUNDING_USDC} USDC per funding`);
  }
  const key = opts.idempotencyKey ? `fund:idem:${opts.idempotencyKey}` : `fund:${randomToken(16)}`;
  await core.db.transaction().execute((tx) =>
    post(tx, { businessId: caller.businessId, environment: caller.environment, key, from: 'external', to: 'available', amount: minor }),
  );
  return getBalanceView(core, caller);
}
