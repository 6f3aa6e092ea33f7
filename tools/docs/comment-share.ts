/**
 * The comment share of the code: of the non-blank lines of the TypeScript files under each folder
 * given (migrations excluded), the share that hold only comment text. Read with the TypeScript
 * scanner, so a `//` inside a string or a template is not a comment.
 *
 *   npx tsx tools/docs/comment-share.ts [folder...]      # default: src workflows
 *   npx tsx tools/docs/comment-share.ts --same A B       # exit 1 unless files A and B differ only in comments
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

/** Comment and code line counts of one source text. */
export interface CommentCount {
  /** Non-blank lines holding only comment text. */
  comment: number;
  /** Non-blank lines in all. */
  total: number;
}

/** Counts the lines of `text` that hold only comments (see the module comment). */
export function countComments(text: string): CommentCount {
  const lines = text.split('\n');
  const hasCode = new Array<boolean>(lines.length).fill(false);
  const hasComment = new Array<boolean>(lines.length).fill(false);
  const starts: number[] = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= pos) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const markRange = (mark: boolean[], from: number, to: number) => {
    for (let l = lineOf(from); l <= lineOf(Math.max(from, to - 1)); l++) mark[l] = true;
  };
  const markComments = (ranges: ts.CommentRange[] | undefined) => {
    for (const r of ranges ?? []) markRange(hasComment, r.pos, r.end);
  };
  // The parser, not a bare scanner: it knows a `/` that starts a regular expression and a `}` that
  // continues a template, so comment-like text inside them stays code.
  const file = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    markComments(ts.getLeadingCommentRanges(text, node.getFullStart()));
    markComments(ts.getTrailingCommentRanges(text, node.getEnd()));
    const children = node.getChildren(file);
    if (children.length === 0 && node.kind !== ts.SyntaxKind.EndOfFileToken) markRange(hasCode, node.getStart(file), node.getEnd());
    children.forEach(visit);
  };
  visit(file);
  let comment = 0;
  let total = 0;
  lines.forEach((line, i) => {
    if (!line.trim()) return;
    total++;
    if (hasComment[i] && !hasCode[i]) comment++;
  });
  return { comment, total };
}

/** The code of `text` without its comments and white space, token by token (for `--same`). */
export function codeTokens(text: string): string[] {
  const file = ts.createSourceFile('file.ts', text, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(file);
    if (children.length === 0) out.push(node.getText(file));
    children.forEach(visit);
  };
  visit(file);
  return out;
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      if (name !== 'migrations' && name !== 'node_modules') out.push(...tsFiles(p));
    } else if (name.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** The comment share of every TypeScript file under `dir`. */
export function folderShare(dir: string): CommentCount & { share: number } {
  let comment = 0;
  let total = 0;
  for (const f of tsFiles(dir)) {
    const c = countComments(readFileSync(f, 'utf8'));
    comment += c.comment;
    total += c.total;
  }
  return { comment, total, share: total ? comment / total : 0 };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--same') {
    const [a, b] = [readFileSync(args[1], 'utf8'), readFileSync(args[2], 'utf8')];
    const same = codeTokens(a).join('\u0000') === codeTokens(b).join('\u0000');
    if (!same) console.error(`${args[1]} and ${args[2]} differ in code, not only in comments`);
    process.exitCode = same ? 0 : 1;
  } else {
    for (const dir of args.length ? args : ['src', 'workflows']) {
      const s = folderShare(dir);
      console.log(`${dir}: ${(s.share * 100).toFixed(1)} % comments (${s.comment} of ${s.total} non-blank lines)`);
    }
  }
}
