import type { MiddlewareHandler } from 'hono';
import { newId } from '../../domain/ids';
import type { AppEnv } from '../types';
import { setResponseHeader } from './response-headers';

const SAFE = /^[A-Za-z0-9._:-]{1,128}$/;

/** Sets `requestId` (the caller's X-Request-ID when well-formed, else `req_…`) and echoes it on every response. */
export const requestId: MiddlewareHandler<AppEnv> = async (c, next) => {
  const incoming = c.req.header('X-Request-ID');
  const id = incoming && SAFE.test(incoming) ? incoming : newId('req');
  c.set('requestId', id);
  c.header('X-Request-ID', id);
  await next();
  setResponseHeader(c, 'X-Request-ID', id);
};
