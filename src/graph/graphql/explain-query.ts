import { cypherLiteral } from './cypher-text.ts';
import { GraphSchemaCache } from './graph-schema-builder.ts';
import { translateToCypher, type CypherTranslation, type PlanStep, type TranslateOptions } from './translate-to-cypher.ts';
import type { GraphqlEngine } from './visible-view.ts';

/** What `toolgraph explain` prints and the `graph.explain` tool answers. */
export interface GraphqlExplanation {
  readonly graph: string;
  /** The operation's name, if it has one. */
  readonly operation: string | null;
  /** The equivalent Cypher: one statement per root field, by response key. */
  readonly cypher: readonly { readonly key: string; readonly statement: string }[];
  /** The executor's steps: one scan per root field, then one expansion per edge field and level. */
  readonly steps: readonly PlanStep[];
  /** The same, as the text `toolgraph explain` prints. */
  readonly text: string;
}

const schemas = new GraphSchemaCache();

function stepText(step: PlanStep): string {
  if (step.kind === 'scan') {
    const filters = step.filters.map((f) => (f.value === null ? `${f.property} IS NULL` : `${f.property} = ${cypherLiteral(f.value)}`));
    const details = [...(filters.length > 0 ? [`filter ${filters.join(' AND ')}`] : []), ...(step.limit !== null ? [`first ${step.limit}`] : [])];
    return `scan ${step.label} for ${step.path}${details.length > 0 ? `: ${details.join('; ')}` : ''}`;
  }
  const rel = `[:${step.edgeType}]`;
  const arrow = step.direction === 'out' ? `-${rel}->` : `<-${rel}-`;
  const per = step.limitPerParent !== null ? `: first ${step.limitPerParent} per parent` : '';
  return `${'  '.repeat(step.level)}expand (${step.from})${arrow}(${step.to.join('|')}) for ${step.path}${per}`;
}

/** The explanation as text: each root field's Cypher statement, then the numbered plan. */
function explanationText(translation: CypherTranslation): string {
  const parts = translation.roots.map((root) => `Cypher for ${root.key}:\n${root.cypher}`);
  const steps = translation.plan.map((step, i) => `${i + 1}. ${stepText(step)}`);
  parts.push(`Plan (one scan per root field, one expansion per edge field and level over all parents at once):\n${steps.length > 0 ? steps.join('\n') : '(nothing to read)'}`);
  return parts.join('\n\n');
}

/**
 * Explains a GraphQL query against a graph's current schema without running it: the equivalent
 * Cypher and the executor's plan. Reads only the graph's catalogue (TG_GRAPH_NOT_FOUND for an
 * unknown graph); refusals as `translateToCypher`'s.
 */
export function explainGraphql(engine: Pick<GraphqlEngine, 'view'>, graph: string, query: string, options: TranslateOptions = {}): GraphqlExplanation {
  const schema = schemas.get(engine.view(graph).catalogue);
  const translation = translateToCypher(schema, query, options);
  return {
    graph,
    operation: translation.operation,
    cypher: translation.roots.map((r) => ({ key: r.key, statement: r.cypher })),
    steps: translation.plan,
    text: explanationText(translation),
  };
}
