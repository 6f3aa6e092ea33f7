import { createRequire } from 'node:module';

const load = createRequire(import.meta.url);

/**
 * A package only one seam needs, loaded at its first use (docs/operations.md "Idle cost"): a getter of
 * `require(specifier)` (CommonJS exports or an ES module's namespace), or of `make` of it, made once.
 */
export function lazyPackage<M, T = M>(specifier: string, make: (module: M) => T = (module) => module as unknown as T): () => T {
  let value: { made: T } | undefined;
  return () => (value ??= { made: make(load(specifier) as M) }).made;
}
