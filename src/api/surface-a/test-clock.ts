/**
 * Sandbox test clock, Surface A (docs/test-clocks.md; 404 under the live base): `GET /sandbox/clock`
 * and `POST /sandbox/clock/advance {by: ISO 8601 duration}`.
 */
import { createRoute, z } from '@hono/zod-openapi';
import { advanceTestClock, getTestClock, type TestClock } from '../../core/test-clocks';
import { idempotency } from '../middleware/idempotency';
import type { SurfaceRouter } from '../surface';
import { sandboxOnly } from './sandbox';
import { AUTH_ERRORS, errorResponses, jsonContent } from './schemas';

const TestClockSchema = z
  .object({
    object: z.literal('test_clock'),
    now: z.string().openapi({ description: 'The business clock: real time plus every advance (ISO 8601 UTC)', example: '2026-12-26T10:00:00.000Z' }),
    advanced_ms: z.number().int().min(0).openapi({ description: 'Sum of the advances, in milliseconds' }),
  })
  .openapi('TestClock');

const TestClockAdvanceSchema = z
  .object({
    object: z.literal('test_clock_advance'),
    id: z.string().openapi({ example: 'tca_01jb2x3y4z5a6b7c8d9e0f1g2h' }),
    by_ms: z.number().int().min(1000).openapi({ description: 'How far this advance moved the clock, in milliseconds' }),
    workflows_signaled: z.number().int().min(0).openapi({ description: 'Waiting payouts and payment requests the advance reached' }),
    clock: TestClockSchema,
  })
  .openapi('TestClockAdvance');

const AdvanceBodySchema = z
  .object({
    by: z
      .string()
      .min(2)
      .max(32)
      .openapi({ description: 'ISO 8601 duration, PT1S to P400D (days, hours, minutes, seconds)', example: 'P31D' }),
  })
  .strict()
  .openapi('TestClockAdvanceBody');

const clockView = (c: TestClock) => ({ object: 'test_clock' as const, now: c.now.toISOString(), advanced_ms: c.advancedMs });

const getRoute = createRoute({
  method: 'get',
  path: '/sandbox/clock',
  operationId: 'getTestClock',
  tags: ['Sandbox'],
  summary: "The business's sandbox test clock (sandbox only, extension)",
  middleware: [sandboxOnly] as const,
  responses: {
    200: { description: 'The clock', content: jsonContent(TestClockSchema) },
    ...errorResponses({ ...AUTH_ERRORS, 404: 'not_found under the live base address' }),
  },
});

const advanceRoute = createRoute({
  method: 'post',
  path: '/sandbox/clock/advance',
  operationId: 'advanceTestClock',
  tags: ['Sandbox'],
  summary: "Move the business's sandbox clock forward (sandbox only, extension)",
  description:
    'Every waiting claim link (Surfaces A, B and C), payment request and payout approval of the business behaves as if `by` had passed: one that expires does what its real expiry does (state, postings, events, webhooks). Objects created afterwards start on real time.',
  middleware: [sandboxOnly, idempotency('A')] as const,
  request: { body: { required: true, content: jsonContent(AdvanceBodySchema) } },
  responses: {
    200: { description: 'The advance and the clock after it', content: jsonContent(TestClockAdvanceSchema) },
    ...errorResponses({ 400: 'validation_error (param by)', ...AUTH_ERRORS, 404: 'not_found under the live base address' }),
  },
});

/** Registers the test-clock routes on a Surface A router. */
export function registerTestClockRoutes(app: SurfaceRouter): void {
  app.openapi(getRoute, async (c) => c.json(clockView(await getTestClock(c.get('core'), c.get('caller'))), 200));
  app.openapi(advanceRoute, async (c) => {
    const r = await advanceTestClock(c.get('core'), c.get('caller'), c.req.valid('json'));
    return c.json({ object: 'test_clock_advance' as const, id: r.id, by_ms: r.byMs, workflows_signaled: r.workflowsSignaled, clock: clockView(r.clock) }, 200);
  });
}
