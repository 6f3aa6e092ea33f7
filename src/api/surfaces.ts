/**
 * The surface registry (spec "Endpoints"; docs/architecture.md): every API surface the service serves.
 * src/api/app.ts mounts each at its live and sandbox base addresses, `/docs` lists their OpenAPI
 * documents, errors of unmatched paths render in the shape of the surface whose base they fall
 * under, and test/api/security-matrix.test.ts enumerates {@link surfaceMounts} to check every
 * operation. Adding a surface is adding its definition to {@link SURFACES} (see src/api/surface.ts).
 */
import type { Environment } from '../db/schema';
import { surfaceA } from './surface-a';
import { surfaceB } from './surface-b';
import { surfaceC } from './surface-c';
import { baseOf, type SurfaceDefinition } from './surface';
import type { Surface } from './types';

/** Every surface, in mounting order. Surface A comes first: it is the default for unknown paths. */
export const SURFACES: readonly SurfaceDefinition[] = [surfaceA, surfaceB, surfaceC];

/** One surface in one environment, at its base address. */
export interface SurfaceMount {
  surface: Surface;
  environment: Environment;
  /** Base address, e.g. `/sandbox/v1`. */
  base: string;
  /** Path of its OpenAPI 3.1 document, e.g. `/sandbox/v1/openapi.json`. */
  openapiPath: string;
  /** Label in the /docs selector, e.g. `Surface A (sandbox)`. */
  label: string;
  definition: SurfaceDefinition;
}

const ENVIRONMENTS: readonly Environment[] = ['live', 'sandbox'];

/** Every (surface, environment) pair the service serves, live before sandbox per surface. */
export function surfaceMounts(): SurfaceMount[] {
  return SURFACES.flatMap((definition) =>
    ENVIRONMENTS.map((environment) => {
      const base = baseOf(definition, environment);
      return { surface: definition.id, environment, base, openapiPath: `${base}/openapi.json`, label: `${definition.name} (${environment})`, definition };
    }),
  );
}

let mounts: SurfaceMount[] | undefined;
const under = (path: string, base: string) => path === base || path.startsWith(`${base}/`);

/**
 * The surface and environment of a request path, from the base address it falls under (the
 * longest matching base wins). A path under no base is Surface A's (its error shape renders the
 * 404), sandbox when it starts with `/sandbox/`.
 */
export function surfaceOf(path: string): { definition: SurfaceDefinition; surface: Surface; environment: Environment } {
  mounts ??= surfaceMounts();
  let best: SurfaceMount | undefined;
  for (const m of mounts) {
    if (under(path, m.base) && (!best || m.base.length > best.base.length)) best = m;
  }
  if (best) return { definition: best.definition, surface: best.surface, environment: best.environment };
  const definition = SURFACES[0];
  return { definition, surface: definition.id, environment: path.startsWith('/sandbox/') ? 'sandbox' : 'live' };
}
