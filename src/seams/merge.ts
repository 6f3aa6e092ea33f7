/**
 * The config loader's merge of every registered module's settings (docs/architecture.md "Seams").
 * Generic over the registries, so the `Config` type keeps each module variable's own type.
 */
import type { SeamModule, SeamSettings } from './module';

/** The settings shapes of a tuple of modules, intersected. */
export type MergedModuleSettings<M extends readonly SeamModule[]> = M extends readonly [infer H extends SeamModule, ...infer T extends readonly SeamModule[]]
  ? H['settings'] & MergedModuleSettings<T>
  : unknown;

/** The settings shapes of a tuple of registries (each a tuple of modules), intersected. */
export type MergedSettings<R extends readonly (readonly SeamModule[])[]> = R extends readonly [infer H extends readonly SeamModule[], ...infer T extends readonly (readonly SeamModule[])[]]
  ? MergedModuleSettings<H> & MergedSettings<T>
  : unknown;

/**
 * `base` plus every module's `settings` of `registries`, as one zod raw shape. Throws when two
 * modules (or a module and `base`) declare the same variable: each variable has one owner.
 */
export function mergeSettings<B extends SeamSettings, const R extends readonly (readonly SeamModule[])[]>(base: B, registries: R): B & MergedSettings<R> {
  const shape: Record<string, SeamSettings[string]> = { ...base };
  const owner = new Map<string, string>(Object.keys(base).map((k) => [k, 'src/config.ts']));
  for (const registry of registries) {
    for (const m of registry) {
      for (const [name, schema] of Object.entries(m.settings)) {
        const first = owner.get(name);
        if (first) throw new Error(`Configuration variable ${name} is declared twice (${first} and module ${m.id})`);
        owner.set(name, `module ${m.id}`);
        shape[name] = schema;
      }
    }
  }
  return shape as B & MergedSettings<R>;
}
