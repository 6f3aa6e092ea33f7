import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './generated/surface-a.sandbox';

/**
 * Typed TypeScript client of the payouts API, Surface A (the business interface). The types are
 * generated from the OpenAPI documents the service serves (`npm run client:generate`, checked in
 * CI by `npm run client:check`); calls go through openapi-fetch, so every path, parameter, body
 * and response is typed from the document:
 *
 * ```ts
 * const api = createPayoutsClient({ baseUrl: 'http://localhost:3000', apiKey: 'sk_test_…' });
 * const payout = unwrap(await api.POST('/payouts', {
 *   body: { channel: 'spei_mxn', recipient_id: 'rcp_…', source_amount: '100.00' },
 *   params: { header: { 'Idempotency-Key': 'invoice-42' } },
 * }));
 * ```
 *
 * Amounts are decimal strings, timestamps ISO 8601 UTC, durations ISO 8601 (spec "Conventions").
 */

/** Surface A's generated `paths` (every endpoint) and `components` (schemas). */
export type SurfaceAPaths = paths;
export type SurfaceAComponents = components;
/** A Surface A schema by name, e.g. `Schema<'Payout'>`. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];
/** The typed client {@link createPayoutsClient} returns (openapi-fetch over Surface A). */
export type PayoutsClient = Client<paths>;
/** Types of every served OpenAPI document, one namespace each (e.g. `Documents.SurfaceASandbox.paths`). */
export type * as Documents from './generated/index';

/** Options of {@link createPayoutsClient}. */
export interface PayoutsClientOptions {
  /** Origin of the service, e.g. `http://localhost:3000` (the surface's base path is added). */
  baseUrl: string;
  /** Secret API key (`sk_test_…` sandbox, `sk_live_…` live), sent as `Authorization: Bearer`. */
  apiKey: string;
  /** Environment; default from the key's prefix (`sk_live_` -> live, else sandbox). */
  environment?: 'sandbox' | 'live';
  /** A fetch implementation (default the global one); tests pass the app's in-process fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Extra headers sent with every request. */
  headers?: Record<string, string>;
}

/**
 * A typed Surface A client: base URL `<baseUrl>/sandbox/v1` or `<baseUrl>/v1` by environment, the
 * API key as bearer token. Methods are openapi-fetch's (`GET`, `POST`, `PATCH`, `DELETE`), each
 * resolving to `{ data, error, response }`; {@link unwrap} turns that into data or a thrown
 * {@link PayoutsApiError}.
 */
export function createPayoutsClient(opts: PayoutsClientOptions): PayoutsClient {
  const environment = opts.environment ?? (opts.apiKey.startsWith('sk_live_') ? 'live' : 'sandbox');
  const base = opts.baseUrl.replace(/\/+$/, '') + (environment === 'live' ? '/v1' : '/sandbox/v1');
  return createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${opts.apiKey}`, ...(opts.headers ?? {}) },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}

/** Options of {@link createSurfaceClient}. */
export interface SurfaceClientOptions extends Omit<PayoutsClientOptions, 'environment'> {
  /** The surface's base address in the environment wanted, e.g. `/sandbox/guide/v1`. */
  base: string;
}

/**
 * A typed client of any served surface, typed by that surface's generated `paths`:
 * `createSurfaceClient<Documents.SurfaceCSandbox.paths>({ baseUrl, base: '/sandbox/guide/v1', apiKey })`.
 * Same transport as {@link createPayoutsClient} (bearer key, optional fetch and headers).
 */
export function createSurfaceClient<P extends object>(opts: SurfaceClientOptions): Client<P> {
  return createClient<P>({
    baseUrl: opts.baseUrl.replace(/\/+$/, '') + opts.base,
    headers: { Authorization: `Bearer ${opts.apiKey}`, ...(opts.headers ?? {}) },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  });
}

/** The Surface A error shape (spec "Errors"). */
export interface SurfaceAErrorBody {
  error: { code: string; message: string; param: string | null; request_id: string };
}

/** A non-2xx answer: HTTP status, and the error's code, message, param and request id. */
export class PayoutsApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null,
    readonly requestId: string | null,
  ) {
    super(`${status} ${code}: ${message}`);
    this.name = 'PayoutsApiError';
  }
}

/**
 * The data of a successful call, or throws {@link PayoutsApiError} built from the error body:
 * Surface A/C's `{error: {code, message, param, request_id}}` or Surface B's
 * `{error, message, details: {param, requestId}}`; code `http_<status>` for any other body.
 */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && result.error === undefined) return result.data as T;
  const { status, statusText, headers } = result.response;
  const body = (result.error ?? {}) as Record<string, unknown>;
  const headerId = headers.get('x-request-id');
  if (body.error && typeof body.error === 'object') {
    const e = body.error as Partial<SurfaceAErrorBody['error']>;
    throw new PayoutsApiError(status, e.code ?? `http_${status}`, e.message ?? statusText, e.param ?? null, e.request_id ?? headerId);
  }
  if (typeof body.error === 'string') {
    const details = (body.details ?? {}) as { param?: string | null; requestId?: string };
    const message = typeof body.message === 'string' ? body.message : statusText;
    throw new PayoutsApiError(status, body.error, message, details.param ?? null, details.requestId ?? headerId);
  }
  throw new PayoutsApiError(status, `http_${status}`, statusText, null, headerId);
}
