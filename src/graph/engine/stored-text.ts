import { wellFormedValue } from './property-values.ts';
import type { CommittedBatch, Mutation, Properties, PropertyValue } from './types.ts';

function repairProps(props: Properties, where: string, repaired: string[]): Properties {
  let out: Record<string, PropertyValue> | null = null;
  for (const key of Object.keys(props)) {
    const value = props[key]!;
    const fixed = wellFormedValue(value);
    if (fixed === value) continue;
    out ??= { ...props };
    out[key] = fixed;
    repaired.push(`${where}.${key}`);
  }
  return out ?? props;
}

/**
 * A stored batch with every lone surrogate in its property values replaced by U+FFFD, and where
 * (`mutations[3].props.s`). Versions before ill-formed text was refused could log such values; the
 * engine repairs them on every replay (deterministically, so every instance agrees) instead of
 * refusing to start or handing readers strings they cannot serialise. Ids, labels, edge types and
 * property names were always checked, so only values need it.
 */
export function repairStoredText(batch: CommittedBatch): { batch: CommittedBatch; repaired: string[] } {
  const repaired: string[] = [];
  let mutations: Mutation[] | null = null;
  for (let i = 0; i < batch.mutations.length; i++) {
    const m = batch.mutations[i]!;
    let fixed: Mutation | null = null;
    if (m.op === 'createNode' && m.props) {
      const props = repairProps(m.props, `mutations[${i}].props`, repaired);
      if (props !== m.props) fixed = { ...m, props };
    } else if (m.op === 'updateNode' && m.set) {
      const set = repairProps(m.set, `mutations[${i}].set`, repaired);
      if (set !== m.set) fixed = { ...m, set };
    }
    if (fixed !== null) (mutations ??= [...batch.mutations])[i] = fixed;
  }
  return { batch: mutations === null ? batch : { ...batch, mutations }, repaired };
}
