/**
 * The rail registry (docs/rails.md "Adding a rail"): adding a rail is one module under
 * src/rails/<rail>/ and one line in {@link RAIL_MODULES}. The sandbox simulator is not an entry.
 */
import type { RailModule, RailStatementParts } from './adapter';
import { achRailModule } from './ach/module';
import { sepaRailModule } from './sepa/module';
import { wiseRailModule } from './wise/module';

/** The live rail modules, in the order their connections are checked. */
export const RAIL_MODULES: readonly RailModule[] = [sepaRailModule, achRailModule, wiseRailModule];

export function railsServedBy(m: RailModule): readonly string[] {
  return [m.rail, ...(m.alsoServes ?? [])];
}

/** The module that serves catalog rail `rail` (its connection id is `module.rail`), or undefined. */
export function railModuleOf(rail: string): RailModule | undefined {
  return RAIL_MODULES.find((m) => m.rail === rail || m.alsoServes?.includes(rail));
}

export interface StatementRail {
  rail: string;
  statements: RailStatementParts;
}

/** The connections with a settlement account, in registry order, configured or not. */
export function statementRails(): StatementRail[] {
  return RAIL_MODULES.flatMap((m) => (m.statements ? [{ rail: m.rail, statements: m.statements }] : []));
}

export function statementPartsOf(rail: string): RailStatementParts | undefined {
  return RAIL_MODULES.find((m) => m.rail === rail)?.statements;
}
