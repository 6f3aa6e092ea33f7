/** Match keys of statement entries (docs/treasury.md "What the books expect"), shared by the rails' statement parsers. Pure. */

/** `<cd>:<reference>` of each distinct reference given (`NOTPROVIDED` and empty skipped). */
export const statementKeys = (cd: 'CRDT' | 'DBIT', refs: Array<string | null | undefined>) =>
  [...new Set(refs.filter((r): r is string => !!r && r !== 'NOTPROVIDED').map((r) => `${cd}:${r}`))];
