/** The surface registry (spec "Endpoints"; docs/architecture.md "Adding a surface"). */
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
  /** e.g. `/sandbox/v1`, `/sandbox/v1/openapi.json`, `Surface A (sandbox)`. */
  base: string;
  openapiPath: string;
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

/** The surface and environment of a path: the longest matching base wins; under none, Surface A. */
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
