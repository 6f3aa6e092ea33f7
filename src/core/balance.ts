/**
 * The balance of a business and environment (extension of Surface A: `GET /balance`) and sandbox
 * funding (`POST /sandbox/fund`; spec "What the service does": in the sandbox funds are free).
 * Every change is a ledger posting (src/core/ledger.ts).
 */
import { ApiError, validationError } from '../domain/errors';
import { randomToken } from '../domain/ids';
import type { Balance } from '../domain/balance';
import { parseAmountParam, parseAmount, USDC } from '../domain/money';
import type { Caller, Core } from './context';
import { getBalance, post } from './ledger';


/** Largest single sandbox funding, in USDC (keeps balances far from the bigint column's range). */
export const MAX_SANDBOX_FUNDING_USDC = '10000000';

/** The caller's balance in its environment (micro-USDC). */
export async function getBalanceView(core: Core, caller: Caller): Promise<Balance> {
  const b = await getBalance(core.db, caller.businessId, caller.environment);
  return { available: { minor: b.available, currency: USDC }, held: { minor: b.held, currency: USDC } };
}

/**
 * Credits the sandbox balance with `amount` (USDC decimal string, > 0, at most 6 decimals and
 * {@link MAX_SANDBOX_FUNDING_USDC}): posting external -> available with key `fund:<idempotency
 * key>` when the request carries one (exactly once even if a process dies mid-request), else
 * `fund:<random>`. Returns the new balance. Errors: 404 not_found in the live environment (the
 * route does not exist there); 400 validation_error (param `param`, default `amount`).
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
