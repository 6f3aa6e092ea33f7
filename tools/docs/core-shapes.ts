/**
 * The core speaks domain objects (docs/architecture.md "Domain objects"): no exported function of
 * `src/core` takes or returns a surface's wire shape. This scanner reads the type checker's view of
 * every exported function (declarations and exported `const f = (...) =>`) under `src/core` and
 * reports each parameter or return type that carries a snake_case property name (Surface A's
 * spelling), looking through `Promise`, arrays, unions, intersections and nested objects to depth 3,
 * and each type named `Wire*`.
 *
 * `npx tsx tools/docs/core-shapes.ts` prints the findings (exit 1 when any); the test
 * `test/unit/core-shapes.test.ts` runs the same scan.
 */
import { relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** One leak: `file:function` and where in its signature the snake_case key or `Wire*` type sits. */
export interface ShapeFinding {
  file: string;
  fn: string;
  where: string;
  key: string;
}

const SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)+$/;

/**
 * Types whose keys are data, not a surface's spelling: a recipient's details are keyed by the
 * channel catalog's requirement field names (`holder_name`, `iban`: spec "ChannelRequirements"),
 * which every surface sends and receives as they are.
 */
export const DATA_KEYED_TYPES: ReadonlyMap<string, string> = new Map([
  ['InlineRecipient', "keyed by the catalog's requirement field names (spec \"ChannelRequirements\")"],
]);

/** Collects the findings for every exported function of `src/core` under `root`. */
export function scanCoreShapes(root: string): ShapeFinding[] {
  const config = ts.readConfigFile(resolve(root, 'tsconfig.json'), ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
  const coreDir = resolve(root, 'src/core') + '/';
  const files = parsed.fileNames.filter((f) => resolve(f).startsWith(coreDir));
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true });
  const checker = program.getTypeChecker();
  const out: ShapeFinding[] = [];

  const walk = (type: ts.Type, path: string, depth: number, seen: Set<ts.Type>, report: (where: string, key: string) => void): void => {
    if (depth > 3 || seen.has(type)) return;
    seen.add(type);
    const name = type.aliasSymbol?.getName() ?? type.getSymbol()?.getName() ?? '';
    if (/^Wire[A-Z]/.test(name)) report(path, name);
    if (DATA_KEYED_TYPES.has(name)) return;
    if (type.isUnionOrIntersection()) {
      for (const t of type.types) walk(t, path, depth, seen, report);
      return;
    }
    const ref = type as ts.TypeReference;
    if (name === 'Promise' || name === 'Array' || name === 'ReadonlyArray' || checker.isArrayType(type) || checker.isTupleType(type)) {
      for (const arg of checker.getTypeArguments(ref) ?? []) walk(arg, path, depth, seen, report);
      return;
    }
    if (!(type.flags & ts.TypeFlags.Object)) return;
    if (type.getCallSignatures().length > 0) return;
    // Built-ins and library classes (Date, Buffer, Kysely, ...) are not shapes of ours.
    const decl = type.getSymbol()?.declarations?.[0];
    if (decl && decl.getSourceFile().fileName.includes('node_modules')) return;
    for (const prop of type.getProperties()) {
      const key = prop.getName();
      const pdecl = prop.valueDeclaration ?? prop.declarations?.[0];
      if (!pdecl) continue;
      const at = relative(root, pdecl.getSourceFile().fileName);
      // A table row (src/db/tables) is the storage's spelling, which only the core and its owner see.
      if (at.startsWith('src/db/')) continue;
      if (SNAKE.test(key)) report(`${path}.${key}`, `${key} @${at}`);
      walk(checker.getTypeOfSymbolAtLocation(prop, pdecl), `${path}.${key}`, depth + 1, seen, report);
    }
  };

  for (const sf of program.getSourceFiles()) {
    if (!files.includes(sf.fileName)) continue;
    const file = relative(root, sf.fileName);
    const moduleSymbol = checker.getSymbolAtLocation(sf);
    if (!moduleSymbol) continue;
    for (const exp of checker.getExportsOfModule(moduleSymbol)) {
      const sym = exp.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exp) : exp;
      const decl = sym.valueDeclaration;
      if (!decl || decl.getSourceFile() !== sf) continue;
      const type = checker.getTypeOfSymbolAtLocation(sym, decl);
      for (const sig of type.getCallSignatures()) {
        const fn = exp.getName();
        const seenKeys = new Set<string>();
        const report = (where: string, key: string) => {
          const id = `${where}`;
          if (seenKeys.has(id)) return;
          seenKeys.add(id);
          out.push({ file, fn, where, key });
        };
        walk(sig.getReturnType(), 'returns', 0, new Set(), report);
        for (const p of sig.getParameters()) {
          const pdecl = p.valueDeclaration ?? p.declarations?.[0];
          if (!pdecl) continue;
          walk(checker.getTypeOfSymbolAtLocation(p, pdecl), `param ${p.getName()}`, 0, new Set(), report);
        }
      }
    }
  }
  return out;
}

if (process.argv[1] && relative(process.argv[1], fileURLToPath(import.meta.url)) === '') {
  const findings = scanCoreShapes(fileURLToPath(new URL('../..', import.meta.url)));
  const byFn = new Map<string, string[]>();
  for (const f of findings) {
    const k = `${f.file} ${f.fn}`;
    byFn.set(k, [...(byFn.get(k) ?? []), f.where]);
  }
  for (const [k, v] of byFn) console.log(`${k}: ${v.slice(0, 4).join(', ')}${v.length > 4 ? ` (+${v.length - 4})` : ''}`);
  console.log(`${byFn.size} functions, ${findings.length} findings`);
  process.exit(findings.length ? 1 : 0);
}
