/**
 * The router factory every API surface is built with (spec "Endpoints"; docs/architecture.md
 * "Adding a surface"). One app per surface and environment: bearer auth on every route but
 * `openapi.json`; the surface's {@link ErrorVocabulary} for everything thrown (zod failures: 400
 * `validation_error` naming the `param`; a lost database, 503 `service_unavailable` with `Retry-After`; other unknown errors: 500 `internal_error`, logged).
 */
import { OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Environment } from '../db/schema';
import type { ApiError, ErrorCode, FieldKey } from '../domain/errors';
import { fromZodError, SERVICE_UNAVAILABLE_RETRY_AFTER_S, toApiError } from './errors';
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
  details: Record<string, unknown> | undefined;
  requestId: string;
}

/** A surface's error vocabulary (spec "Errors"): how a core {@link ApiError} becomes its status and body. */
export interface ErrorVocabulary<Body = unknown> {
  /** The error body, registered as the `Error` component of the surface's OpenAPI documents. */
  readonly schema: z.ZodType<Body>;
  render(err: ApiError, requestId: string): { status: ContentfulStatusCode; body: Body };
}

/** A surface's own status and/or code for a core error (unset fields keep the core's). */
export interface ErrorMapping {
  status?: ContentfulStatusCode;
  code?: string;
}

/** An {@link ErrorVocabulary}; `codes` gives, per core {@link ErrorCode}, the surface's own status and/or code where they differ. */
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

/** Turns `{400: 'validation_error (param x)', …}` into OpenAPI error responses in the vocabulary's schema. */
export function errorResponsesOf<Body>(vocabulary: ErrorVocabulary<Body>) {
  return <S extends number>(descriptions: Record<S, string>): ErrorResponses<S, Body> => {
    const out = {} as ErrorResponses<S, Body>;
    for (const [status, description] of Object.entries<string>(descriptions)) {
      out[Number(status) as S] = { description, content: { 'application/json': { schema: vocabulary.schema } } };
    }
    return out;
  };
}

/** Responds with `err` rendered by `vocabulary` and records the core's code as `errorCode`. */
export function respondWithError(c: Context<AppEnv>, vocabulary: ErrorVocabulary, err: ApiError): Response {
  const { status, body } = vocabulary.render(err, c.get('requestId') ?? '');
  c.set('errorCode', err.code);
  if (err.status === 503) c.header('Retry-After', String(SERVICE_UNAVAILABLE_RETRY_AFTER_S));
  return c.json(body, status);
}

/** A surface: its id, base addresses, OpenAPI description, error vocabulary and routes. */
export interface SurfaceDefinition {
  readonly id: Surface;
  /** Short name, e.g. `Surface A` (the /docs selector shows `<name> (sandbox)`). */
  readonly name: string;
  /** Base addresses, e.g. `/v1` and `/sandbox/v1`. */
  readonly liveBase: string;
  readonly sandboxBase: string;
  readonly title: string;
  readonly description: string;
  /** OpenAPI info.version (spec "Versioning": 1.0.0). */
  readonly version: string;
  readonly errors: ErrorVocabulary;
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

/** A bare OpenAPIHono router whose validation failures become 400 validation_error naming the param. */
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
 * Throws when an operation on `app` has no `operationId`, one not camelCase, or a duplicate
 * (docs/api-keys.md "Operation ids": SDK generators name their methods after them).
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

/** The app of surface `def` in `environment`, to be mounted at its base address. */
export function buildSurfaceApp(def: SurfaceDefinition, environment: Environment): SurfaceRouter {
  const app = createSurfaceRouter();
  app.use('*', async (c, next) => {
    c.set('surface', def.id);
    c.set('environment', environment);
    await next();
  });
  app.use('*', async (c, next) => (c.req.path.endsWith('/openapi.json') ? next() : authenticate(c, next)));
  app.use('*', async (c, next) => (c.get('caller') ? keyRateLimit(c, next) : next()));
  app.onError((err, c) => {
    const apiErr = toApiError(err);
    if (apiErr.status >= 500) c.get('core').log.error({ err, requestId: c.get('requestId') }, 'request failed');
    return respondWithError(c, def.errors, apiErr);
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer' });
  def.register(app, environment);
  checkOperationIds(app, `${def.name} (${environment})`);
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
