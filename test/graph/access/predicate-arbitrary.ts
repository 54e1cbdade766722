import fc from 'fast-check';
import type { Operand, Predicate } from '../../../src/graph/access/index.ts';

/**
 * Row predicates of every form (boolean, eq, in, and, or, not), nested a few levels, over the given
 * operands. `withCrossShrink` is fast-check's oneof option (shrinking across branches).
 */
export function predicateOver(operand: fc.Arbitrary<Operand>, options: { withCrossShrink?: boolean } = {}): fc.Arbitrary<Predicate> {
  return fc.letrec<{ p: Predicate }>((tie) => ({
    p: fc.oneof(
      { depthSize: 'small', ...options },
      fc.boolean(),
      fc.tuple(operand, operand).map(([a, b]): Predicate => ({ eq: [a, b] })),
      fc.tuple(operand, operand).map(([a, b]): Predicate => ({ in: [a, b] })),
      fc.array(tie('p'), { minLength: 1, maxLength: 3 }).map((and): Predicate => ({ and: and as [Predicate, ...Predicate[]] })),
      fc.array(tie('p'), { minLength: 1, maxLength: 3 }).map((or): Predicate => ({ or: or as [Predicate, ...Predicate[]] })),
      tie('p').map((not): Predicate => ({ not })),
    ),
  })).p;
}
