// Prints the import cycles of src/, type-only imports included: node scripts/dev/import-cycles.ts [--runtime] [--areas|--folders] [--all] [ROOT]
// Reads every .ts file under ROOT (default src) with the TypeScript compiler's parser and follows its
// relative imports and re-exports, static and dynamic (`import()`, `typeof import()`). An edge is
// `type` when everything it brings in is a type (`import type`, `export type`, or only `type`-marked
// names), `lazy` for a dynamic import, `value` otherwise. With --runtime only `value` edges count (the
// cycles that can bite at load time). With --areas each area is one node (area-level cycles, as
// `access → carrier → dispatch → access`): an area is the shallowest folder with an index.ts on a
// file's path (src/auth holds src/auth/delegation), else the file's folder right under ROOT (src/cli
// holds src/cli/commands); with --folders each folder is one node. Each strongly connected group is listed with the shortest
// cycle through each of its members (--all: every elementary cycle, at most 50 per group), each edge
// marked with its kind. Exits 1 when there is a cycle, so CI can hold the line; 0 when there is none.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import ts from 'typescript';

type EdgeKind = 'value' | 'lazy' | 'type';
const STRENGTH: Record<EdgeKind, number> = { type: 0, lazy: 1, value: 2 };
const MAX_CYCLES_PER_GROUP = 50;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runtime: { type: 'boolean', default: false },
    areas: { type: 'boolean', default: false },
    folders: { type: 'boolean', default: false },
    all: { type: 'boolean', default: false },
  },
});
const cwd = process.cwd();
const root = resolve(cwd, positionals[0] ?? 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).sort().flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names: as written, `.js` written for `.ts`, or a folder's index. */
function resolveSpecifier(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = resolve(dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** Whether an import or export declaration brings in types only. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false; // a side-effect import runs the module
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const bindings = clause.namedBindings;
    return bindings !== undefined && ts.isNamedImports(bindings) && bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return clause !== undefined && ts.isNamedExports(clause) && clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

/** Every relative import of one file, with the kind of each. */
function importsOf(file: string): { target: string; kind: EdgeKind }[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { specifier: string; kind: EdgeKind }[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: typeOnly(node) ? 'type' : 'value' });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push({ specifier: arg.text, kind: 'lazy' });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, kind: 'type' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found.flatMap(({ specifier, kind }) => {
    const target = resolveSpecifier(file, specifier);
    return target ? [{ target, kind }] : [];
  });
}

const files = sourceFiles(root);
const display = (path: string): string => relative(cwd, path).split(sep).join('/');

/** The area a folder belongs to: its shallowest ancestor (or itself) with an index.ts, else its top folder under ROOT. */
function areaOf(dir: string): string {
  const parts = relative(root, dir).split(sep).filter((p) => p.length > 0);
  for (let depth = 1; depth <= parts.length; depth += 1) {
    const folder = join(root, ...parts.slice(0, depth));
    if (existsSync(join(folder, 'index.ts'))) return folder;
  }
  return parts.length > 0 ? join(root, parts[0] ?? '') : root;
}

const nodeOf = (file: string): string => {
  if (values.areas) return display(areaOf(dirname(file)));
  if (values.folders) return display(dirname(file));
  return display(file);
};
const grouped = values.areas || values.folders;

/** node → (target → the strongest kind of any import between them). */
const graph = new Map<string, Map<string, EdgeKind>>();
for (const file of files) {
  const from = nodeOf(file);
  const edges = graph.get(from) ?? new Map<string, EdgeKind>();
  graph.set(from, edges);
  for (const { target, kind } of importsOf(file)) {
    if (values.runtime && kind !== 'value') continue;
    const to = nodeOf(target);
    if (to === from && grouped) continue; // files of one area (or folder) importing each other
    const known = edges.get(to);
    if (known === undefined || STRENGTH[kind] > STRENGTH[known]) edges.set(to, kind);
  }
}
for (const edges of [...graph.values()]) for (const to of edges.keys()) if (!graph.has(to)) graph.set(to, new Map());

/** Tarjan's strongly connected components, each with more than one node or a self-import. */
function cyclicGroups(): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const connect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v)?.keys() ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
      }
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string | undefined;
      do {
        w = stack.pop();
        if (w === undefined) break;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || graph.get(v)?.has(v)) groups.push(group.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) connect(v);
  return groups.sort((a, b) => (a[0] ?? '').localeCompare(b[0] ?? ''));
}

/** The elementary cycles of one group, each starting at its smallest member (so none is listed twice). */
function cyclesOf(group: string[]): { cycles: string[][]; more: boolean } {
  const members = new Set(group);
  const cycles: string[][] = [];
  let more = false;
  for (const start of group) {
    const path = [start];
    const onPath = new Set(path);
    const walk = (v: string): void => {
      for (const w of [...(graph.get(v)?.keys() ?? [])].sort()) {
        if (!members.has(w) || w < start) continue;
        if (w === start) {
          if (cycles.length >= MAX_CYCLES_PER_GROUP) {
            more = true;
            return;
          }
          cycles.push([...path, start]);
        } else if (!onPath.has(w)) {
          path.push(w);
          onPath.add(w);
          walk(w);
          onPath.delete(w);
          path.pop();
        }
      }
    };
    walk(start);
  }
  return { cycles, more };
}

/** The shortest cycle through each member of a group (breadth-first), each listed once. */
function shortestCyclesOf(group: string[]): { cycles: string[][]; more: boolean } {
  const members = new Set(group);
  const seen = new Set<string>();
  const cycles: string[][] = [];
  for (const start of group) {
    const parent = new Map<string, string>();
    const queue = [start];
    let found: string[] | undefined;
    for (let i = 0; i < queue.length && !found; i += 1) {
      const v = queue[i] ?? '';
      for (const w of [...(graph.get(v)?.keys() ?? [])].sort()) {
        if (!members.has(w)) continue;
        if (w === start) {
          const path = [v];
          while (path[0] !== start) path.unshift(parent.get(path[0] ?? '') ?? start);
          found = [...path, start];
          break;
        }
        if (!parent.has(w) && w !== start) {
          parent.set(w, v);
          queue.push(w);
        }
      }
    }
    if (!found) continue;
    // One rotation per cycle: start it at its smallest member.
    const ring = found.slice(0, -1);
    const least = ring.indexOf([...ring].sort()[0] ?? '');
    const rotated = [...ring.slice(least), ...ring.slice(0, least)];
    const key = rotated.join('\n');
    if (seen.has(key)) continue;
    seen.add(key);
    cycles.push([...rotated, rotated[0] ?? '']);
  }
  return { cycles, more: false };
}

const groups = cyclicGroups();
const scope = `${values.areas ? 'area' : values.folders ? 'folder' : 'file'}-level import cycles in ${display(root) || '.'} (${values.runtime ? 'value imports only' : 'type-only and lazy imports included'})`;
const lines: string[] = [];
let total = 0;
for (const group of groups) {
  const { cycles, more } = values.all ? cyclesOf(group) : shortestCyclesOf(group);
  total += cycles.length;
  lines.push(`group of ${group.length}: ${group.join(', ')}`);
  for (const cycle of cycles) {
    const steps = cycle.slice(1).map((to, i) => {
      const from = cycle[i] ?? '';
      return ` -${graph.get(from)?.get(to) ?? '?'}-> ${to}`;
    });
    lines.push(`  ${cycle[0]}${steps.join('')}`);
  }
  if (more) lines.push(`  … more than ${MAX_CYCLES_PER_GROUP} cycles in this group`);
}
process.stdout.write(`${scope}: ${groups.length} group(s), ${total} cycle(s)\n${lines.map((l) => `${l}\n`).join('')}`);
process.exitCode = groups.length > 0 ? 1 : 0;
