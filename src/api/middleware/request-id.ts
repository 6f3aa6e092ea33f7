import type { MiddlewareHandler } from 'hono';
import { newId } from '../../domain/ids';
import type { AppEnv } from '../types';

const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Sets `requestId` (the caller's X-Request-ID when well-formed, else `req_…`) and echoes it. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header('X-Request-ID');
  const id = incoming && SAFE.test(incoming) ? incoming : newId('req');
  c.set('requestId', id);
  c.header('X-Request-ID', id);
  await next();
  c.header('X-Request-ID', id);
};
