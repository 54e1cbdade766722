import type { ArithmeticOp, ComparisonOp, Expr } from '../language/ast.ts';
import { runtimeError } from '../language/cypher-error.ts';
import { slotOf, type Row, type RunContext } from './run-context.ts';
import { functionSpec, type CallExpr } from './functions.ts';
import { containsText, searchTableBytes } from './string-search.ts';
import { regexMatches } from './regex-vm.ts';
import { evaluateComprehension, evaluateQuantifier, evaluateReduce } from './evaluate-scoped.ts';
import { LIST_SLOT_BYTES, chargeMapCopy, jsonSizeOf } from './value-size.ts';
import { CHARS_PER_UNIT_SHIFT, EdgeRef, NodeRef, PathRef, compareCodePoints, isMap, newMap, storedProperty, typeName, type Value, type ValueMap, type WorkMeter } from './values.ts';

/** Evaluates an expression against one row. Three-valued logic throughout: null means unknown. */
export function evaluate(expr: Expr, row: Row, ctx: RunContext): Value {
  switch (expr.kind) {
    case 'literal':
      return expr.value;
    case 'list':
      // Its items are as many as the query text writes; each one that builds a large value charges it.
      ctx.budget.tick(expr.items.length);
      return expr.items.map((item) => evaluate(item, row, ctx));
    case 'map': {
      ctx.budget.tick(expr.entries.length);
      const out = newMap();
      for (const entry of expr.entries) out[entry.key] = evaluate(entry.value, row, ctx);
      return out;
    }
    case 'parameter': {
      const value = ctx.params.get(expr.name);
      if (value === undefined) throw runtimeError(`Missing parameter $${expr.name}: the query uses it but the request's params do not give it.`, { parameter: expr.name });
      return value;
    }
    case 'variable': {
      const value = row[slotOf(ctx, expr.name)];
      if (value === undefined) throw runtimeError(`Variable \`${expr.name}\` is not defined here.`, { variable: expr.name });
      return value;
    }
    case 'property':
      return propertyOf(evaluate(expr.target, row, ctx), expr.key, ctx);
    case 'index':
      return indexOf(evaluate(expr.target, row, ctx), evaluate(expr.index, row, ctx));
    case 'slice':
      return sliceOf(evaluate(expr.target, row, ctx), expr.from === null ? 0 : evaluate(expr.from, row, ctx), expr.to === null ? undefined : evaluate(expr.to, row, ctx), ctx);
    case 'case': {
      const subject = expr.subject === null ? undefined : evaluate(expr.subject, row, ctx);
      for (const branch of expr.branches) {
        const when = evaluate(branch.when, row, ctx);
        const applies = subject === undefined ? asBoolean(when, 'CASE WHEN') === true : equals(subject, when, ctx.budget) === true;
        if (applies) return evaluate(branch.then, row, ctx);
      }
      return expr.otherwise === null ? null : evaluate(expr.otherwise, row, ctx);
    }
    case 'hasLabel': {
      const target = evaluate(expr.target, row, ctx);
      if (target === null) return null;
      if (!(target instanceof NodeRef)) throw typeError(':Label', 'Node', target);
      const record = ctx.resolve(target);
      return record === null ? null : record.label === expr.label;
    }
    case 'and': {
      let unknown = false;
      for (const operand of expr.operands) {
        const v = asBoolean(evaluate(operand, row, ctx), 'AND');
        if (v === false) return false;
        if (v === null) unknown = true;
      }
      return unknown ? null : true;
    }
    case 'or': {
      let unknown = false;
      for (const operand of expr.operands) {
        const v = asBoolean(evaluate(operand, row, ctx), 'OR');
        if (v === true) return true;
        if (v === null) unknown = true;
      }
      return unknown ? null : false;
    }
    case 'xor': {
      let result = false;
      for (const operand of expr.operands) {
        const v = asBoolean(evaluate(operand, row, ctx), 'XOR');
        if (v === null) return null;
        result = result !== v;
      }
      return result;
    }
    case 'not': {
      const v = asBoolean(evaluate(expr.operand, row, ctx), 'NOT');
      return v === null ? null : !v;
    }
    case 'negate': {
      const v = evaluate(expr.operand, row, ctx);
      if (v === null) return null;
      if (typeof v !== 'number') throw typeError('unary -', 'a number', v);
      return v === 0 ? 0 : -v;
    }
    case 'comparison': {
      let left = evaluate(expr.first, row, ctx);
      let unknown = false;
      for (const { op, expr: next } of expr.rest) {
        const right = evaluate(next, row, ctx);
        const v = compare(op, left, right, ctx);
        if (v === false) return false;
        if (v === null) unknown = true;
        left = right;
      }
      return unknown ? null : true;
    }
    case 'arithmetic': {
      let acc = evaluate(expr.first, row, ctx);
      // Whether `acc` is a string or list this chain joined (and so already charged).
      let joined = false;
      for (const { op, expr: next } of expr.rest) {
        const right = evaluate(next, row, ctx);
        if (op === '+' && joins(acc, right)) {
          chargeJoin(acc, right, joined, ctx);
          joined = true;
        }
        acc = arithmetic(op, acc, right);
      }
      return acc;
    }
    case 'isNull': {
      const v = evaluate(expr.operand, row, ctx);
      return expr.negated ? v !== null : v === null;
    }
    case 'in': {
      const element = evaluate(expr.element, row, ctx);
      const list = evaluate(expr.list, row, ctx);
      if (list === null) return null;
      if (!Array.isArray(list)) throw typeError('IN', 'a list on the right', list);
      return inList(element, list as readonly Value[], ctx);
    }
    case 'string': {
      const left = evaluate(expr.left, row, ctx);
      const right = evaluate(expr.right, row, ctx);
      if (typeof left !== 'string' || typeof right !== 'string') return null;
      // Told before the scan, as long as what it reads: a hundred tests of a 600 kB string in one
      // WHERE are a hundred clock readings, not one row's unit of work.
      const budget = ctx.budget;
      if (expr.op === 'CONTAINS') {
        const table = searchTableBytes(right);
        if (table > 0) budget.chargeBytes(table);
        budget.tick((left.length + right.length) >>> CHARS_PER_UNIT_SHIFT);
        return containsText(left, right);
      }
      budget.tick(right.length >>> CHARS_PER_UNIT_SHIFT);
      return expr.op === 'STARTS WITH' ? left.startsWith(right) : left.endsWith(right);
    }
    case 'regex': {
      const left = evaluate(expr.left, row, ctx);
      const right = evaluate(expr.right, row, ctx);
      if (typeof left !== 'string' || typeof right !== 'string') return null;
      // Linear in the text whatever the pattern; it tells the budget of its work as it goes.
      return regexMatches(left, right, ctx.budget);
    }
    case 'call':
      return call(expr, row, ctx);
    case 'mapProjection':
      return project(expr, row, ctx);
    case 'patternComprehension':
    case 'patternPredicate':
    case 'existsSubquery':
    case 'countSubquery': {
      const cached = ctx.prepared.get(expr)?.get(row);
      return cached !== undefined ? cached : ctx.subquery(expr, row);
    }
    case 'listComprehension':
      return evaluateComprehension(expr, row, ctx, evaluate);
    case 'quantifier':
      return evaluateQuantifier(expr, row, ctx, evaluate);
    case 'reduce':
      return evaluateReduce(expr, row, ctx, evaluate);
  }
}

/** Whether `+` builds a string or a list from these operands. */
function joins(a: Value, b: Value): boolean {
  return a !== null && b !== null && (typeof a === 'string' || typeof b === 'string' || Array.isArray(a) || Array.isArray(b));
}

/**
 * Charges the budget with the string or list `a + b` is about to build, before it is built: a chain
 * `a + b + c` costs its final size once (each step adds its right operand; the first also its left),
 * so `$p + $p + ...` over a large parameter is refused long before the string exists.
 */
function chargeJoin(a: Value, b: Value, aCharged: boolean, ctx: RunContext): void {
  const budget = ctx.budget;
  const left = budget.limits.maxResultBytes - budget.bytes + 1;
  let size = aCharged ? 0 : jsonSizeOf(a, ctx.resolve, left);
  size += jsonSizeOf(b, ctx.resolve, left - size);
  budget.chargeBytes(size);
}

function typeError(where: string, expected: string, got: Value): Error {
  return runtimeError(`Type error in ${where}: expected ${expected}, got ${typeName(got)}.`, { expected, got: typeName(got) });
}

export function asBoolean(value: Value, where: string): boolean | null {
  if (value === null || typeof value === 'boolean') return value;
  throw typeError(where, 'a boolean', value);
}

function propertyOf(target: Value, key: string, ctx: RunContext): Value {
  if (target === null) return null;
  if (target instanceof NodeRef) {
    // `id` is the node id: it is never a property name, so it cannot shadow one.
    if (key === 'id') return target.id;
    const record = ctx.resolve(target);
    if (record === null) return null;
    return storedProperty(record.props, key);
  }
  if (target instanceof EdgeRef) {
    if (key === 'src' || key === 'tgt' || key === 'type') return target.edge[key];
    return null;
  }
  if (isMap(target)) return Object.hasOwn(target, key) ? target[key]! : null;
  throw typeError(`.${key}`, 'a node, relationship or map', target);
}

/**
 * `list[from..to]` as Cypher slices: negative bounds count from the end, bounds are clamped, null in
 * gives null. The copy is charged before it is made (a slot per item: the items themselves are shared),
 * so a literal of a thousand slices of a large parameter is refused, not built.
 */
function sliceOf(target: Value, from: Value, to: Value | undefined, ctx: RunContext): Value {
  if (target === null || from === null || to === null) return null;
  if (!Array.isArray(target)) throw typeError('[from..to]', 'a list', target);
  const list = target as readonly Value[];
  for (const bound of to === undefined ? [from] : [from, to]) {
    if (typeof bound !== 'number' || !Number.isInteger(bound)) throw typeError('[from..to]', 'integer bounds', bound);
  }
  const clamp = (b: number): number => Math.min(list.length, Math.max(0, b < 0 ? list.length + b : b));
  const start = clamp(from as number);
  const end = to === undefined ? list.length : clamp(to as number);
  if (start >= end) return [];
  ctx.budget.chargeBytes((end - start) * LIST_SLOT_BYTES + 2);
  return list.slice(start, end);
}

function indexOf(target: Value, index: Value): Value {
  if (target === null || index === null) return null;
  if (Array.isArray(target)) {
    if (typeof index !== 'number' || !Number.isInteger(index)) throw typeError('[index]', 'an integer index', index);
    const list = target as readonly Value[];
    const i = index < 0 ? list.length + index : index;
    return i >= 0 && i < list.length ? list[i]! : null;
  }
  if (isMap(target) || target instanceof NodeRef || target instanceof EdgeRef) {
    if (typeof index !== 'string') throw typeError('[key]', 'a string key', index);
    return isMap(target) ? (Object.hasOwn(target, index) ? target[index]! : null) : null;
  }
  throw typeError('[]', 'a list or map', target);
}

/** Units of work the equality test in progress has done (module state: equality never calls out, so never nests). */
let equated = 0;

/**
 * Cypher equality: null when either side is (or contains) null, otherwise structural. With a meter,
 * it is told the work done beyond a constant (list elements and map entries visited, characters compared).
 */
export function equals(a: Value, b: Value, meter?: WorkMeter): boolean | null {
  equated = 0;
  const eq = equalValues(a, b);
  if (meter !== undefined && equated > 0) meter.tick(equated);
  return eq;
}

/** `element IN list`, telling the budget of every item it looked at (and of what comparing them took). */
function inList(element: Value, list: readonly Value[], ctx: RunContext): boolean | null {
  equated = 0;
  // True at the first equal item; null when none is but some comparison was unknown.
  let found: boolean | null = false;
  for (let i = 0; i < list.length; i++) {
    equated++;
    const eq = equalValues(element, list[i]!);
    if (eq === true) {
      found = true;
      break;
    }
    if (eq === null) found = null;
  }
  ctx.budget.tick(equated);
  return found;
}

function equalValues(a: Value, b: Value): boolean | null {
  if (a === null || b === null) return null;
  if (typeof a === 'string' && typeof b === 'string') {
    equated += a.length >>> CHARS_PER_UNIT_SHIFT;
    return a === b;
  }
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (a instanceof NodeRef || b instanceof NodeRef) return a instanceof NodeRef && b instanceof NodeRef && a.id === b.id;
  if (a instanceof EdgeRef || b instanceof EdgeRef) {
    return a instanceof EdgeRef && b instanceof EdgeRef && a.edge.src === b.edge.src && a.edge.tgt === b.edge.tgt && a.edge.type === b.edge.type;
  }
  if (a instanceof PathRef || b instanceof PathRef) return a instanceof PathRef && b instanceof PathRef && equalValues(a.alternating(), b.alternating()) === true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b)) return false;
    const x = a as readonly Value[];
    const y = b as readonly Value[];
    if (x.length !== y.length) return false;
    let unknown = false;
    for (let i = 0; i < x.length; i++) {
      equated++;
      const eq = equalValues(x[i]!, y[i]!);
      if (eq === false) return false;
      if (eq === null) unknown = true;
    }
    return unknown ? null : true;
  }
  const x = a as ValueMap;
  const y = b as ValueMap;
  const kx = Object.keys(x);
  if (kx.length !== Object.keys(y).length) return false;
  let unknown = false;
  for (const k of kx) {
    equated++;
    if (!Object.hasOwn(y, k)) return false;
    const eq = equalValues(x[k]!, y[k]!);
    if (eq === false) return false;
    if (eq === null) unknown = true;
  }
  return unknown ? null : true;
}

function compare(op: ComparisonOp, a: Value, b: Value, ctx: RunContext): boolean | null {
  if (op === '=') return equals(a, b, ctx.budget);
  if (op === '<>') {
    const eq = equals(a, b, ctx.budget);
    return eq === null ? null : !eq;
  }
  if (a === null || b === null) return null;
  let c: number;
  if (typeof a === 'number' && typeof b === 'number') c = a - b;
  else if (typeof a === 'string' && typeof b === 'string') {
    const n = Math.min(a.length, b.length) >>> CHARS_PER_UNIT_SHIFT;
    if (n > 0) ctx.budget.tick(n);
    c = compareCodePoints(a, b);
  }
  else if (typeof a === 'boolean' && typeof b === 'boolean') c = Number(a) - Number(b);
  else return null;
  switch (op) {
    case '<': return c < 0;
    case '<=': return c <= 0;
    case '>': return c > 0;
    default: return c >= 0;
  }
}

function finite(value: number, op: string): number {
  if (!Number.isFinite(value)) throw runtimeError(`Arithmetic error: ${op} gives a result that is not a finite number.`);
  return value;
}

function arithmetic(op: ArithmeticOp, a: Value, b: Value): Value {
  if (a === null || b === null) return null;
  if (op === '+') {
    if (Array.isArray(a)) return Array.isArray(b) ? [...(a as readonly Value[]), ...(b as readonly Value[])] : [...(a as readonly Value[]), b];
    if (Array.isArray(b)) return [a, ...(b as readonly Value[])];
    if (typeof a === 'string' && (typeof b === 'string' || typeof b === 'number')) return a + String(b);
    if (typeof b === 'string' && typeof a === 'number') return String(a) + b;
  }
  if (typeof a !== 'number') throw typeError(op, 'a number', a);
  if (typeof b !== 'number') throw typeError(op, 'a number', b);
  // Integers (every integral number: the graph model's Int) keep Cypher's integer arithmetic: `/`
  // truncates toward zero and the results of + - * must stay exact (±(2^53 − 1), not Cypher's 64 bits).
  const integers = Number.isInteger(a) && Number.isInteger(b);
  switch (op) {
    case '+': return integers ? exactInteger(a + b, a, op, b) : finite(a + b, '+');
    case '-': return integers ? exactInteger(a - b, a, op, b) : finite(a - b, '-');
    case '*': return integers ? exactInteger(a * b, a, op, b) : finite(a * b, '*');
    case '/':
      if (b === 0) throw runtimeError('Arithmetic error: division by zero.');
      if (integers) return integerQuotient(a, b);
      return finite(a / b, '/');
    case '%': {
      if (b === 0) throw runtimeError('Arithmetic error: modulo by zero.');
      // The sign of the dividend, as Cypher's (and Java's) remainder: -7 % 2 is -1, 7 % -2 is 1.
      const r = finite(a % b, '%');
      return r === 0 ? 0 : r;
    }
    case '^': return finite(a ** b, '^');
  }
}

/** The integer result of `a op b`, refused when it is past the integers a JS number holds exactly. */
function exactInteger(value: number, a: number, op: ArithmeticOp, b: number): number {
  if (Number.isSafeInteger(value)) return value === 0 ? 0 : value;
  throw runtimeError(`Arithmetic error: integer overflow: ${a} ${op} ${b} is outside ±${Number.MAX_SAFE_INTEGER}, the integers this engine represents exactly.`);
}

/** Integer division truncating toward zero (7 / 2 is 3, -7 / 2 is -3), exact for every safe integer. */
function integerQuotient(a: number, b: number): number {
  // A float quotient of two numbers below 2^31 truncates to the exact integer one; larger ones go through BigInt.
  const q = Math.abs(a) < 2 ** 31 && Math.abs(b) < 2 ** 31 ? Math.trunc(a / b) : Number(BigInt(a) / BigInt(b));
  return q === 0 ? 0 : exactInteger(q, a, '/', b);
}

function call(expr: CallExpr, row: Row, ctx: RunContext): Value {
  const aggregated = ctx.aggregates?.get(expr);
  if (aggregated !== undefined) return aggregated;
  const fn = functionSpec(expr.name);
  if (fn === undefined || fn.aggregate === true) throw runtimeError(`The aggregate ${expr.name}() cannot be used here.`);
  if (fn.lazy === true) return fn.evaluate((i) => evaluate(expr.args[i]!, row, ctx), ctx, expr);
  const args = expr.args;
  const values: Value[] = new Array<Value>(args.length);
  for (let i = 0; i < args.length; i++) values[i] = evaluate(args[i]!, row, ctx);
  return fn.evaluate(values, ctx, expr);
}

function project(expr: Extract<Expr, { kind: 'mapProjection' }>, row: Row, ctx: RunContext): Value {
  const base = row[slotOf(ctx, expr.variable)];
  if (base === undefined) throw runtimeError(`Variable \`${expr.variable}\` is not defined here.`, { variable: expr.variable });
  if (base === null) return null;
  if (!(base instanceof NodeRef) && !isMap(base) && !(base instanceof EdgeRef)) throw typeError('a map projection', 'a node or map', base);
  const out = newMap();
  for (const item of expr.items) {
    switch (item.kind) {
      case 'propertySelector':
        out[item.key] = propertyOf(base, item.key, ctx);
        break;
      case 'allProperties': {
        if (base instanceof NodeRef) {
          const record = ctx.resolve(base);
          if (record !== null) {
            chargeMapCopy(record.props as ValueMap, false, ctx.budget);
            for (const k of Object.keys(record.props)) out[k] = record.props[k] as Value;
          }
        } else if (isMap(base)) {
          chargeMapCopy(base, false, ctx.budget);
          for (const k of Object.keys(base)) out[k] = base[k]!;
        }
        break;
      }
      case 'literalEntry':
        out[item.key] = evaluate(item.value, row, ctx);
        break;
      case 'variableSelector': {
        const v = row[slotOf(ctx, item.name)];
        if (v === undefined) throw runtimeError(`Variable \`${item.name}\` is not defined here.`, { variable: item.name });
        out[item.name] = v;
        break;
      }
    }
  }
  return out;
}
