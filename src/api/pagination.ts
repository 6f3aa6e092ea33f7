import { z } from '@hono/zod-openapi';

/** Spec "Endpoints", common rules: `limit` 1..200 (default 50) and an opaque `cursor`. */
export const pageQuery = {
  limit: z.coerce.number().int().min(1).max(200).default(50).openapi({ description: 'Page size, 1 to 200 (default 50)' }),
  cursor: z.string().optional().openapi({ description: 'Opaque cursor from next_cursor of the previous page' }),
};

export { decodeCursor, encodeCursor, paginate } from '../core/paging';
