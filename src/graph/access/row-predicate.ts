import type { NodeRecord } from '../engine/index.ts';
import type { Operand, Predicate } from './check-policy.ts';
import type { ClaimValue } from './principal-claims.ts';

/**
 * Three-valued truth: a comparison that reads a missing property or claim is UNKNOWN; `not`
 * leaves UNKNOWN as it is, `and`/`or` follow Kleene's tables, and a row is visible only when its
 * rule is TRUE. So a predicate over a property that does not exist never makes a row visible, and
 * never raises an error.
 */
export const FALSE = 0;
export const TRUE = 1;
export const UNKNOWN = 2;
type Truth = typeof FALSE | typeof TRUE | typeof UNKNOWN;

/** A compiled row rule: a constant, or a function of the row. */
type RowTest = (node: NodeRecord) => Truth;
/**
 * `test` answers the three-valued truth (what `not` needs); `holds` answers only "is it TRUE", the
 * question row filtering asks, with fewer steps (an eq against a constant is one comparison, an in
 * against a claim list one Set lookup).
 */
export type CompiledPredicate = { readonly constant: Truth } | { readonly test: RowTest; readonly holds: (node: NodeRecord) => boolean };

function fromTest(test: RowTest): CompiledPredicate {
  return { test, holds: (node) => test(node) === TRUE };
}

type Scalar = string | number | boolean;
type Value = Scalar | readonly Scalar[] | undefined;

/** An operand once the principal is known: claims and literals are constants; row reads stay. */
type Bound = { readonly constant: Value } | { readonly read: (node: NodeRecord) => Value; readonly raw: (node: NodeRecord) => unknown };

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || typeof value === 'number';
}

/** A property value read from a row; anything but a scalar or a list (e.g. an inherited `constructor`) is missing. */
function rowReader(name: string): (node: NodeRecord) => Value {
  if (name === 'id') return (node) => node.id;
  return (node) => {
    const value = (node.props as Record<string, unknown>)[name];
    if (isScalar(value)) return value;
    if (Array.isArray(value) && Object.hasOwn(node.props, name)) return value as readonly Scalar[];
    return undefined;
  };
}

/** The raw value at a row operand (any own or inherited property): only for comparing with a known scalar or Set. */
function rawReader(name: string): (node: NodeRecord) => unknown {
  if (name === 'id') return (node) => node.id;
  return (node) => (node.props as Record<string, unknown>)[name];
}

function bind(operand: Operand, claim: (name: string) => ClaimValue): Bound {
  if ('row' in operand) return { read: rowReader(operand.row), raw: rawReader(operand.row) };
  if ('claim' in operand) return { constant: claim(operand.claim) };
  return { constant: operand.value };
}

function eqValues(a: Value, b: Value): Truth {
  if (!isScalar(a) || !isScalar(b)) return UNKNOWN;
  return a === b ? TRUE : FALSE;
}

function inValues(item: Value, list: Value): Truth {
  if (!isScalar(item) || list === undefined) return UNKNOWN;
  if (isScalar(list)) return item === list ? TRUE : FALSE;
  return list.includes(item) ? TRUE : FALSE;
}

const constant = (truth: Truth): CompiledPredicate => ({ constant: truth });

function compileEq(a: Bound, b: Bound): CompiledPredicate {
  if ('constant' in a && 'constant' in b) return constant(eqValues(a.constant, b.constant));
  if ('constant' in a || 'constant' in b) {
    const fixed = 'constant' in a ? a.constant : (b as { constant: Value }).constant;
    const row = ('read' in a ? a : b) as { read: (node: NodeRecord) => Value; raw: (node: NodeRecord) => unknown };
    const read = row.read;
    const raw = row.raw;
    if (!isScalar(fixed)) return constant(UNKNOWN);
    return {
      test: (node) => {
        const v = read(node);
        return isScalar(v) ? (v === fixed ? TRUE : FALSE) : UNKNOWN;
      },
      // Equal to a scalar means present and a scalar.
      holds: (node) => raw(node) === fixed,
    };
  }
  const ra = a.read;
  const rb = b.read;
  return fromTest((node) => eqValues(ra(node), rb(node)));
}

function compileIn(item: Bound, list: Bound): CompiledPredicate {
  if ('constant' in item && 'constant' in list) return constant(inValues(item.constant, list.constant));
  if ('constant' in list) {
    const fixed = list.constant;
    if (fixed === undefined) return constant(UNKNOWN);
    // The common case (row.team in claims.groups): one hash lookup per row.
    const members = new Set<unknown>(isScalar(fixed) ? [fixed] : fixed);
    const { read, raw } = item as { read: (node: NodeRecord) => Value; raw: (node: NodeRecord) => unknown };
    return {
      test: (node) => {
        const v = read(node);
        return isScalar(v) ? (members.has(v) ? TRUE : FALSE) : UNKNOWN;
      },
      // The Set holds only scalars: a list, a missing value or an inherited member is never in it.
      holds: (node) => members.has(raw(node)),
    };
  }
  const readList = list.read;
  if ('constant' in item) {
    const fixed = item.constant;
    if (!isScalar(fixed)) return constant(UNKNOWN);
    return fromTest((node) => inValues(fixed, readList(node)));
  }
  const readItem = item.read;
  return fromTest((node) => inValues(readItem(node), readList(node)));
}

function compileAnd(parts: CompiledPredicate[]): CompiledPredicate {
  let unknown = false;
  const tests: RowTest[] = [];
  for (const part of parts) {
    if ('constant' in part) {
      if (part.constant === FALSE) return constant(FALSE);
      if (part.constant === UNKNOWN) unknown = true;
    } else {
      tests.push(part.test);
    }
  }
  if (tests.length === 0) return constant(unknown ? UNKNOWN : TRUE);
  const base: Truth = unknown ? UNKNOWN : TRUE;
  if (tests.length === 1 && base === TRUE) return parts.find((p) => 'test' in p)!;
  const holds = parts.flatMap((p) => ('holds' in p ? [p.holds] : []));
  return {
    // TRUE exactly when every part is TRUE (and no constant part is UNKNOWN).
    holds: base === UNKNOWN ? () => false : (node) => {
      for (const h of holds) if (!h(node)) return false;
      return true;
    },
    test: (node) => {
      let result: Truth = base;
      for (const test of tests) {
        const t = test(node);
        if (t === FALSE) return FALSE;
        if (t === UNKNOWN) result = UNKNOWN;
      }
      return result;
    },
  };
}

function compileOr(parts: CompiledPredicate[]): CompiledPredicate {
  let unknown = false;
  const tests: RowTest[] = [];
  for (const part of parts) {
    if ('constant' in part) {
      if (part.constant === TRUE) return constant(TRUE);
      if (part.constant === UNKNOWN) unknown = true;
    } else {
      tests.push(part.test);
    }
  }
  if (tests.length === 0) return constant(unknown ? UNKNOWN : FALSE);
  const base: Truth = unknown ? UNKNOWN : FALSE;
  if (tests.length === 1 && base === FALSE) return parts.find((p) => 'test' in p)!;
  const holds = parts.flatMap((p) => ('holds' in p ? [p.holds] : []));
  return {
    // TRUE exactly when some part is TRUE.
    holds: (node) => {
      for (const h of holds) if (h(node)) return true;
      return false;
    },
    test: (node) => {
      let result: Truth = base;
      for (const test of tests) {
        const t = test(node);
        if (t === TRUE) return TRUE;
        if (t === UNKNOWN) result = UNKNOWN;
      }
      return result;
    },
  };
}

const NEGATE: readonly Truth[] = [TRUE, FALSE, UNKNOWN];

/**
 * Compiles a predicate for one principal: claims and literals become constants, constant parts fold
 * away, and what is left is a tree of closures over the row's properties, built once and then run per
 * row (never the JSON interpreted per row).
 */
export function compilePredicate(predicate: Predicate, claim: (name: string) => ClaimValue): CompiledPredicate {
  if (typeof predicate === 'boolean') return constant(predicate ? TRUE : FALSE);
  if ('eq' in predicate) return compileEq(bind(predicate.eq[0], claim), bind(predicate.eq[1], claim));
  if ('in' in predicate) return compileIn(bind(predicate.in[0], claim), bind(predicate.in[1], claim));
  if ('and' in predicate) return compileAnd(predicate.and.map((p) => compilePredicate(p, claim)));
  if ('or' in predicate) return compileOr(predicate.or.map((p) => compilePredicate(p, claim)));
  const inner = compilePredicate(predicate.not, claim);
  if ('constant' in inner) return constant(NEGATE[inner.constant]!);
  const test = inner.test;
  return { test: (node) => NEGATE[test(node)]!, holds: (node) => test(node) === FALSE };
}

/** The claim names a predicate reads (what a principal's compiled rules depend on). */
export function claimsReadBy(predicate: Predicate, into: Set<string>): Set<string> {
  if (typeof predicate === 'boolean') return into;
  if ('eq' in predicate || 'in' in predicate) {
    for (const operand of 'eq' in predicate ? predicate.eq : predicate.in) if ('claim' in operand) into.add(operand.claim);
    return into;
  }
  if ('and' in predicate) for (const p of predicate.and) claimsReadBy(p, into);
  else if ('or' in predicate) for (const p of predicate.or) claimsReadBy(p, into);
  else claimsReadBy(predicate.not, into);
  return into;
}
