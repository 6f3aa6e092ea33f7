/** Surface A channels (spec "Channel", "ChannelRequirements"); src/core/catalog.ts decides. */
import { createRoute, z } from '@hono/zod-openapi';
import { getChannelRequirements, listChannels } from '../../core/catalog';
import { renderChannel, renderChannelRequirements } from '../../wire/surface-a/channels';
import type { SurfaceRouter } from '../surface';
import {
  ArrivalSchema,
  AUTH_ERRORS,
  AmountSchema,
  CountrySchema,
  CurrencySchema,
  errorResponses,
  idParam,
  jsonContent,
  LimitsSchema,
  RecipientTypeSchema,
} from './schemas';

/** Spec "Channel" (plus the documented extension `countries`). */
export const ChannelSchema = z
  .object({
    id: z.string().openapi({ example: 'spei_mxn' }),
    status: z.enum(['live', 'paused']).openapi({ description: 'paused while a provider on the rail is degraded' }),
    status_reason: z.string().nullable().openapi({
      description:
        'Extension: why the channel is paused (the operator paused it, no working live connection, no usable live rate, or live sanctions screening unavailable: docs/screening.md "Fail closed"); null while live',
      example: null,
    }),
    country: z.string().nullable().openapi({ description: 'ISO 3166-1 alpha-2; null for borderless channels (claim_link); "EU" for sepa_eur', example: 'MX' }),
    countries: z.array(z.string()).openapi({
      description: 'Extension: every country the channel pays to (all euro-area countries for sepa_eur; empty for borderless channels)',
      example: ['MX'],
    }),
    currency: z.string().openapi({ example: 'MXN' }),
    rail: z.string().openapi({ example: 'spei' }),
    recipient_type: RecipientTypeSchema,
    arrival: ArrivalSchema,
    limits: LimitsSchema,
    fee: z
      .object({
        percent: z.string().openapi({ description: 'Percentage of the source amount ("1.15" = 1.15 %): provider + service + FX spread', example: '1.15' }),
        flat: AmountSchema.openapi({ example: '0.25' }),
        currency: z.string().openapi({ example: 'USDC' }),
      })
      .openapi({ description: "The caller's fee at the current tier" }),
  })
  .openapi('Channel');

const RequirementFieldSchema = z.object({
  name: z.string().openapi({ example: 'clabe' }),
  type: z.enum(['string', 'enum', 'date', 'email', 'phone']),
  required: z.boolean(),
  pattern: z.string().optional().openapi({ description: 'Regular expression the value must match', example: '^[0-9]{18}$' }),
  values: z.array(z.string()).optional().openapi({ description: 'Allowed values of an enum field' }),
  description: z.string().optional(),
});

/** Spec "ChannelRequirements" (plus the extension `identity_fields`). */
export const ChannelRequirementsSchema = z
  .object({
    channel: z.string().openapi({ example: 'spei_mxn' }),
    recipient_type: RecipientTypeSchema,
    fields: z.array(RequirementFieldSchema),
    limits: LimitsSchema,
    identity_fields: z.array(RequirementFieldSchema).optional().openapi({
      description:
        'Extension: the identity fields the recipient of a claim link gives on the claim page when paid on this channel ' +
        '(identity checks at claim time; the integrator sends none). Present for channels that ask them (spei_mxn, pix_brl).',
    }),
  })
  .openapi('ChannelRequirements');

const ChannelListSchema = z.object({ data: z.array(ChannelSchema) });

const ChannelListQuerySchema = z.object({
  country: CountrySchema.optional(),
  currency: CurrencySchema.optional(),
  recipient_type: RecipientTypeSchema.optional(),
});

/** Query of `GET /channels`. */
export type ChannelListQuery = z.infer<typeof ChannelListQuerySchema>;
/** Response body of `GET /channels` (spec: an object with data, not a paged list envelope). */
export type ChannelListResponse = z.infer<typeof ChannelListSchema>;
/** One channel (spec "Channel"). */
export type ChannelResponse = z.infer<typeof ChannelSchema>;
/** Response body of `GET /channels/{channel}/requirements`. */
export type ChannelRequirementsResponse = z.infer<typeof ChannelRequirementsSchema>;

const listRoute = createRoute({
  operationId: 'listChannels',
  method: 'get',
  path: '/channels',
  tags: ['Channels'],
  summary: 'List channels',
  description:
    'Every destination channel with its status, coverage, recipient type, limits, typical arrival and your fee. ' +
    'Optional filters (extension): country (channels paying to it), currency, recipient_type (channels that can pay that type).',
  request: { query: ChannelListQuerySchema },
  responses: {
    200: {
      description: 'The channels',
      content: jsonContent(ChannelListSchema),
    },
    ...errorResponses({ 400: 'Invalid filter', ...AUTH_ERRORS }),
  },
});

const requirementsRoute = createRoute({
  operationId: 'getChannelRequirements',
  method: 'get',
  path: '/channels/{channel}/requirements',
  tags: ['Channels'],
  summary: 'Recipient requirements of a channel',
  description: 'The recipient fields the channel needs (read them from here rather than fixing them in code) and its limits.',
  request: { params: z.object({ channel: idParam('channel', 'spei_mxn') }) },
  responses: {
    200: { description: 'The requirements', content: jsonContent(ChannelRequirementsSchema) },
    ...errorResponses({ 404: 'Unknown channel (param channel)', ...AUTH_ERRORS }),
  },
});

/** Registers `GET /channels` and `GET /channels/{channel}/requirements` on a Surface A router. */
export function registerChannelRoutes(app: SurfaceRouter): void {
  app.openapi(listRoute, (c) => {
    const { recipient_type: recipientType, ...q } = c.req.valid('query');
    const channels = listChannels(c.get('core'), c.get('caller'), { ...q, recipientType });
    return c.json({ data: channels.map(renderChannel) }, 200);
  });
  app.openapi(requirementsRoute, (c) => {
    const { channel } = c.req.valid('param');
    return c.json(renderChannelRequirements(getChannelRequirements(c.get('core'), c.get('caller'), channel)), 200);
  });
}
