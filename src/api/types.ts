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
    environment: Environment;
    caller: Caller;
    /** The Idempotency-Key in the core's form (per-surface namespace: src/domain/idempotency-keys.ts). */
    idempotencyKey: string | undefined;
    /** The core's code of the error the response renders (set by `respondWithError`). */
    errorCode: ErrorCode | undefined;
  };
}
