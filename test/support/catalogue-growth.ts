import fc from 'fast-check';
import type { GraphTypes } from '../../src/graph/engine/graph-types.ts';
import type { PropertyType } from '../../src/graph/engine/index.ts';

/** One step of catalogue growth, as the engine records it (labels, property types, edge-type label pairs). */
export type GrowthStep =
  | { readonly kind: 'label'; readonly label: number }
  | { readonly kind: 'property'; readonly label: number; readonly name: string; readonly type: PropertyType }
  | { readonly kind: 'pair'; readonly type: string; readonly src: number; readonly tgt: number };

export const LABELS = ['A', 'B', 'C', 'Dd', 'E'];
// Names that meet: a property named like an edge field (KNOWS, KNOWS_in), pagination names (kept out of filters).
const PROPERTY_NAMES = ['name', 'n', 'first', 'cursor', 'KNOWS', 'KNOWS_in', 'tags', 'x'];
const TYPES: PropertyType[] = ['String', 'Int', 'Float', 'Boolean', '[String]', '[Int]', '[Float]', '[Boolean]'];

export const growthStep: fc.Arbitrary<GrowthStep> = fc.oneof(
  fc.record({ kind: fc.constant('label' as const), label: fc.nat(LABELS.length - 1) }),
  fc.record({ kind: fc.constant('property' as const), label: fc.nat(LABELS.length - 1), name: fc.constantFrom(...PROPERTY_NAMES), type: fc.constantFrom(...TYPES) }),
  fc.record({ kind: fc.constant('pair' as const), type: fc.constantFrom('KNOWS', 'LIKES', 'AUTHORED'), src: fc.nat(LABELS.length - 1), tgt: fc.nat(LABELS.length - 1) }),
);

/** Rounds of growth: the catalogue after each round is one schema version. */
export const growthRounds = fc.array(fc.array(growthStep, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 8 });

export function applyGrowth(types: GraphTypes, s: GrowthStep): void {
  if (s.kind === 'label') types.addLabel(LABELS[s.label]!);
  else if (s.kind === 'property') {
    types.addLabel(LABELS[s.label]!);
    types.setType(LABELS[s.label]!, s.name, s.type);
  } else {
    types.addLabel(LABELS[s.src]!);
    types.addLabel(LABELS[s.tgt]!);
    types.addPair(s.type, LABELS[s.src]!, LABELS[s.tgt]!);
  }
}
