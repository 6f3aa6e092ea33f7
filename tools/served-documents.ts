import pino from 'pino';
import { createApp } from '../src/api/app';
import { type OpenApiDocumentRef, servedOpenApiDocuments } from '../src/api/docs';
import { loadConfig } from '../src/config';
import type { Core } from '../src/core/context';

/** One served OpenAPI document, as the service answers `GET <url>`. */
export interface RenderedDocument {
  ref: OpenApiDocumentRef;
  /** The parsed OpenAPI 3.1 document. */
  document: {
    paths: Record<string, Record<string, { operationId?: string } & Record<string, unknown>>>;
    [key: string]: unknown;
  };
}

/**
 * Every OpenAPI document the service serves (src/api/docs.ts `servedOpenApiDocuments`: six today,
 * Surfaces A, B and C, live and sandbox), rendered by the HTTP app built in process: serving a
 * document touches neither the database nor Temporal, so no server is started. Used by
 * tools/openapi-lint.ts and test/api/openapi-operation-ids.test.ts.
 */
export async function renderServedDocuments(): Promise<RenderedDocument[]> {
  const config = loadConfig({ LOG_LEVEL: 'silent' });
  const core = { config, log: pino({ level: 'silent' }), now: () => new Date() } as unknown as Core;
  const app = createApp(core);
  const out: RenderedDocument[] = [];
  for (const ref of servedOpenApiDocuments()) {
    const res = await app.request(ref.url);
    if (res.status !== 200) throw new Error(`GET ${ref.url} answered ${res.status}: ${await res.text()}`);
    out.push({ ref, document: (await res.json()) as RenderedDocument['document'] });
  }
  return out;
}
