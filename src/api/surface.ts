/**
 * The router factory every API surface is built with (spec "Endpoints"; docs/architecture.md).
 *
 * A surface is one interface of the same core (spec: Surface A, the business interface, snake_case;
 * Surface B, the claim-flow interface, camelCase; Surface C, the payout guide, snake_case). Each is
 * served twice, live and sandbox, at its two base addresses. {@link defineSurface} describes one;
 * {@link buildSurfaceApp} turns it into the OpenAPIHono app of one environment with, in order:
 * 1. `surface` and `environment` set on the context (the environment comes from the base address);
 * 2. bearer authentication ({@link authenticate}) on every route except `openapi.json`;
 * 3. the surface's own error renderer ({@link ErrorVocabulary}) for everything thrown: core
 *    `ApiError`s, zod validation failures (400 `validation_error` naming the `param`), unknown errors
 *    (500 `internal_error`, logged with the request id);
 * 4. the surface's routes (`register`), each with a unique camelCase `operationId` (checked by
 *    {@link checkOperationIds}: a route without one fails at start-up), then its OpenAPI 3.1
 *    document at `openapi.json`, with the bearer security scheme and the surface's error schema
 *    as the `Error` component.
 *
 * ## How a new surface plugs in (Surface B shown; C is the same with `/guide/v1`)
 * 1. `src/api/surface-b/errors.ts`: the error vocabulary, one place mapping the core's codes to this
 *    surface's status, code and body:
 *    ```ts
 *    export const ClaimErrorSchema = z.object({ error: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()) }).openapi('Error');
 *    export const surfaceBErrors = defineErrorVocabulary({
 *      schema: ClaimErrorSchema,
 *      codes: {                                   // only where B differs from the core (spec "Surface B error body")
 *        validation_error: (e) => (e.param === 'recipientPhone' ? { code: 'invalid_phone' } : undefined),
 *        amount_out_of_range: { code: 'amount_below_minimum' },
 *      },
 *      body: (e) => ({ error: e.code, message: e.message, details: { ...e.details, param: e.param, requestId: e.requestId } }),
 *    });
 *    export const errorResponses = errorResponsesOf(surfaceBErrors);
 *    ```
 * 2. `src/api/surface-b/schemas.ts`: the shared wire schemas of the surface (amount, ids,
 *    timestamps, list envelope), re-exporting the error schema and `errorResponses`.
 * 3. One route module per resource (`src/api/surface-b/disbursements.ts`, ...): its `createRoute`
 *    definitions (each with a unique camelCase `operationId`, verb first: `listDisbursements`),
 *    `export type` of its request and response bodies (`z.infer` of the schemas), and
 *    `export function registerDisbursementRoutes(app: SurfaceRouter)`. Handlers call src/core and
 *    render; no `any`, no casts to `never`.
 * 4. `src/api/surface-b/index.ts`:
 *    ```ts
 *    export const surfaceB = defineSurface({ id: 'B', name: 'Surface B', liveBase: '/claim/v1', sandboxBase: '/sandbox/claim/v1',
 *      title: 'Payouts API, Surface B (claim-flow disbursements)', description: '…', errors: surfaceBErrors,
 *      register: (app) => { registerDisbursementRoutes(app); … } });
 *    ```
 * 5. Add `surfaceB` to `SURFACES` in src/api/surfaces.ts: src/api/app.ts mounts it at both base
 *    addresses, `/docs` lists its two documents, errors of unmatched paths under its bases render in
 *    its shape, and test/api/security-matrix.test.ts checks every operation of its documents (401
 *    without a key and with the other environment's key, 404 for another business's ids, error
 *    bodies in its shape).
 * 6. Add the surface's entry to `SURFACE_FIXTURES` in test/api/security-matrix.test.ts: how to create
 *    business 1's resources and which resource each path parameter names (until then the matrix
 *    fails and says what is missing).
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Environment } from '../db/schema';
import type { ApiError, ErrorCode, FieldKey } from '../domain/errors';
import { fromZodError, toApiError } from './errors';
import { authenticate } from './middleware/auth';
import { keyRateLimit } from './middleware/key-rate-limit';
import { addCommonResponses } from './openapi-common';
import type { AppEnv, Surface } from './types';

/** The OpenAPIHono app a surface's route modules register on. */
export type SurfaceRouter = OpenAPIHono<AppEnv>;

/** What the renderer of a surface gets for one error. */
export interface ErrorFacts {
  /** The surface's code (the core's code unless the vocabulary maps it). */
  code: string;
  message: string;
  /** Offending parameter, dotted (`items.3.source_amount`), or null. */
  param: string | null;
  /** Extra facts the core attached (e.g. Surface B's details). */
  details: Record<string, unknown> | undefined;
  /** The request's X-Request-ID. */
  requestId: string;
}

/**
 * A surface's error vocabulary (spec "Errors"): its error body schema, and how a core
 * {@link ApiError} becomes its HTTP status and body.
 */
export interface ErrorVocabulary<Body = unknown> {
  /** The error body, registered as the `Error` component of the surface's OpenAPI documents. */
  readonly schema: z.ZodType<Body>;
  /** The status and body of `err` on this surface. */
  render(err: ApiError, requestId: string): { status: ContentfulStatusCode; body: Body };
}

/** A surface's own status and/or code for a core error (unset fields keep the core's). */
export interface ErrorMapping {
  status?: ContentfulStatusCode;
  code?: string;
}

/**
 * An {@link ErrorVocabulary} from the surface's error schema, its body builder, and, per core
 * {@link ErrorCode}, the surface's own status and/or code where they differ from the core's, fixed
 * or decided per error (e.g. by its `param`); a surface that uses the core's vocabulary as it is,
 * like Surface A, gives none.
 */
export function defineErrorVocabulary<Body>(spec: {
  schema: z.ZodType<Body>;
  codes?: Partial<Record<ErrorCode, ErrorMapping | ((err: ApiError) => ErrorMapping | undefined)>>;
  /** The surface's name of each core field it spells differently (src/domain/errors.ts FIELD_KEYS). */
  fields?: Partial<Record<FieldKey, string>>;
  body: (e: ErrorFacts) => Body;
}): ErrorVocabulary<Body> {
  return {
    schema: spec.schema,
    render(err, requestId) {
      const entry = spec.codes?.[err.code];
      const mapped = typeof entry === 'function' ? entry(err) : entry;
      const name = err.field && spec.fields?.[err.field.key];
      const { param, message } = err.field && name ? { param: name, message: err.field.message(name) } : { param: err.param, message: err.message };
      return {
        status: mapped?.status ?? (err.status as ContentfulStatusCode),
        body: spec.body({ code: mapped?.code ?? err.code, message, param, details: err.details, requestId }),
      };
    },
  };
}

/** One OpenAPI `responses` entry per error status, each with the surface's error schema. */
export type ErrorResponses<S extends number, Body> = Record<S, { description: string; content: { 'application/json': { schema: z.ZodType<Body> } } }>;

/**
 * A helper that turns `{400: 'validation_error (param x)', 401: '…'}` into OpenAPI error responses
 * in the vocabulary's schema, for `createRoute({ responses: { 200: …, ...errorResponses({…}) } })`.
 */
export function errorResponsesOf<Body>(vocabulary: ErrorVocabulary<Body>) {
  return <S extends number>(descriptions: Record<S, string>): ErrorResponses<S, Body> => {
    const out = {} as ErrorResponses<S, Body>;
    for (const [status, description] of Object.entries<string>(descriptions)) {
      out[Number(status) as S] = { description, content: { 'application/json': { schema: vocabulary.schema } } };
    }
    return out;
  };
}

/**
 * Responds with `err` rendered by `vocabulary` (keeps headers already set, e.g. X-Request-ID) and
 * records the core's code as `errorCode` for middleware that runs after (idempotency).
 */
export function respondWithError(c: Context<AppEnv>, vocabulary: ErrorVocabulary, err: ApiError): Response {
  const { status, body } = vocabulary.render(err, c.get('requestId') ?? '');
  c.set('errorCode', err.code);
  return c.json(body, status);
}

/** A surface: its id, base addresses, OpenAPI description, error vocabulary and routes. */
export interface SurfaceDefinition {
  readonly id: Surface;
  /** Short name, e.g. `Surface A` (the /docs selector shows `<name> (sandbox)`). */
  readonly name: string;
  /** Live base address, e.g. `/v1`. */
  readonly liveBase: string;
  /** Sandbox base address, e.g. `/sandbox/v1`. */
  readonly sandboxBase: string;
  /** OpenAPI info.title. */
  readonly title: string;
  /** OpenAPI info.description. */
  readonly description: string;
  /** OpenAPI info.version (spec "Versioning": 1.0.0). */
  readonly version: string;
  readonly errors: ErrorVocabulary;
  /** Registers every route of the surface (one call per route module). */
  register(app: SurfaceRouter, environment: Environment): void;
}

/** Checks and returns a surface definition (bases start with `/`, do not end with one, and differ). */
export function defineSurface(def: Omit<SurfaceDefinition, 'version'> & { version?: string }): SurfaceDefinition {
  for (const base of [def.liveBase, def.sandboxBase]) {
    if (!base.startsWith('/') || base.endsWith('/')) throw new Error(`Surface ${def.id}: base address '${base}' must start and not end with '/'`);
  }
  if (def.liveBase === def.sandboxBase) throw new Error(`Surface ${def.id}: live and sandbox base addresses must differ`);
  return { ...def, version: def.version ?? '1.0.0' };
}

/** The base address of `def` in `environment`. */
export const baseOf = (def: SurfaceDefinition, environment: Environment): string =>
  environment === 'live' ? def.liveBase : def.sandboxBase;

/**
 * A bare OpenAPIHono router whose request validation failures become 400 validation_error naming
 * the param (rendered by whichever surface app it is mounted in).
 */
export function createSurfaceRouter(): SurfaceRouter {
  return new OpenAPIHono<AppEnv>({
    // `result.data` is the input that was validated (@hono/zod-validator passes it on failure too).
    defaultHook: (result) => {
      if (!result.success) throw fromZodError(result.error, (result as { data?: unknown }).data);
    },
  });
}

/** An operationId as generators want it: camelCase, verb first (`listPayouts`, `createPayout`). */
export const OPERATION_ID_PATTERN = /^[a-z][a-zA-Z0-9]*$/;

/**
 * Throws when an operation registered on `app` has no `operationId`, one that is not camelCase, or
 * one another operation of the same document already has (docs/api-keys.md "Operation ids": SDK
 * generators name their methods after them, so they are required and stable). Called by
 * {@link buildSurfaceApp} once the routes are registered, so a route without one fails at start-up
 * and in every test.
 */
export function checkOperationIds(app: SurfaceRouter, documentName: string): void {
  const seen = new Map<string, string>();
  for (const def of app.openAPIRegistry.definitions) {
    if (def.type !== 'route') continue;
    const where = `${def.route.method.toUpperCase()} ${def.route.path}`;
    const id = def.route.operationId;
    if (!id || !OPERATION_ID_PATTERN.test(id)) {
      throw new Error(`${documentName}: ${where} needs an operationId in camelCase, verb first (e.g. listPayouts), in its createRoute({...})`);
    }
    const other = seen.get(id);
    if (other) throw new Error(`${documentName}: operationId '${id}' of ${where} is already used by ${other}`);
    seen.set(id, where);
  }
}

/** The app of surface `def` in `environment`, to be mounted at its base address (see the module docstring). */
export function buildSurfaceApp(def: SurfaceDefinition, environment: Environment): SurfaceRouter {
  const app = createSurfaceRouter();
  app.use('*', async (c, next) => {
    c.set('surface', def.id);
    c.set('environment', environment);
    await next();
  });
  app.use('*', async (c, next) => (c.req.path.endsWith('/openapi.json') ? next() : authenticate(c, next)));
  // Per-key rate limits (Surfaces A and C; B has its own table): src/api/middleware/key-rate-limit.ts.
  app.use('*', async (c, next) => (c.get('caller') ? keyRateLimit(c, next) : next()));
  app.onError((err, c) => {
    const apiErr = toApiError(err);
    if (apiErr.status >= 500) c.get('core').log.error({ err, requestId: c.get('requestId') }, 'request failed');
    return respondWithError(c, def.errors, apiErr);
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  def.register(app, environment);
  checkOperationIds(app, `${def.name} (${environment})`);
  // Served with the responses every operation can give (src/api/openapi-common.ts).
  const documentConfig = {
    openapi: '3.1.0',
    info: { title: def.title, version: def.version, description: def.description },
    servers: [{ url: baseOf(def, environment) }],
    security: [{ bearer: [] }],
  };
  let document: unknown;
  app.get('/openapi.json', (c) => c.json((document ??= addCommonResponses(app.getOpenAPI31Document(documentConfig)))));
  return app;
}
