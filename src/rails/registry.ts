/**
 * The rail registry (docs/rails.md "Adding a rail"): every live rail module, one entry each. The
 * core finds a rail's module here by the catalog rail id (channel.rail) and never names a rail
 * itself. Adding a rail is one module under src/rails/<rail>/ (a {@link RailModule}) and one
 * line in {@link RAIL_MODULES}. The sandbox simulator is not a registry entry: it serves every
 * rail of the sandbox environment (src/sandbox/rail-adapter.ts). A module with a `statements` part adds
 * its settlement account to the treasury's reconciliation (docs/treasury.md).
 */
import type { RailModule, RailStatementParts } from './adapter';
import { achRailModule } from './ach/module';
import { sepaRailModule } from './sepa/module';
import { wiseRailModule } from './wise/module';

/**
 * The live rail modules, in the order their connections are checked. A tuple, so the config
 * loader's merge keeps each module's variables typed (src/seams/registry.ts).
 */
export const RAIL_MODULES = [sepaRailModule, achRailModule, wiseRailModule] as const;

export function railsServedBy(m: RailModule): readonly string[] {
  return [m.rail, ...(m.alsoServes ?? [])];
}

/** The module that serves catalog rail `rail` (its connection id is `module.rail`), or undefined. */
export function railModuleOf(rail: string): RailModule | undefined {
  return (RAIL_MODULES as readonly RailModule[]).find((m) => m.rail === rail || m.alsoServes?.includes(rail));
}

export interface StatementRail {
  rail: string;
  statements: RailStatementParts;
}

/** The connections with a settlement account, in registry order, configured or not. */
export function statementRails(): StatementRail[] {
  return (RAIL_MODULES as readonly RailModule[]).flatMap((m) => (m.statements ? [{ rail: m.rail, statements: m.statements }] : []));
}

export function statementPartsOf(rail: string): RailStatementParts | undefined {
  return (RAIL_MODULES as readonly RailModule[]).find((m) => m.rail === rail)?.statements;
}
