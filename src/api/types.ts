import type { Caller, Core } from '../core/context';
import type { Environment } from '../db/schema';
import type { ErrorCode } from '../domain/errors';

/** Which surface a request is for (spec: the interface appears as three surfaces; src/api/surfaces.ts). */
export type Surface = 'A' | 'B' | 'C';

/** Hono environment shared by every surface: variables set by the platform middleware. */
export interface AppEnv {
  Variables: {
    core: Core;
    requestId: string;
    surface: Surface;
    /** Environment of the base address the request came in on. */
    environment: Environment;
    /** Set by the auth middleware. */
    caller: Caller;
    /** The request's Idempotency-Key in the core's form (its surface's namespace: src/domain/idempotency-keys.ts), when it carries one; set by the idempotency middleware. */
    idempotencyKey: string | undefined;
    /** The core's code of the error the response renders, in any surface's shape (set by `respondWithError`). */
    errorCode: ErrorCode | undefined;
  };
}
