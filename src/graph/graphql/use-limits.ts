import { EnvelopArmor } from '@escape.tech/graphql-armor';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import type { Plugin } from '@envelop/core';
import {
  GraphQLError, Kind, NoSchemaIntrospectionCustomRule,
  type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule,
} from 'graphql';
import { SETTINGS } from '../../config/index.ts';
import type { GraphqlLimits } from './graphql-options.ts';
import { useHiddenSuggestions } from './use-hidden-suggestions.ts';

type LimitName = 'depth' | 'cost' | 'aliases' | 'directives' | 'tokens' | 'fields' | 'representations';

const SETTING_OF: Record<LimitName, string> = {
  depth: SETTINGS.graphqlMaxDepth.env!,
  cost: SETTINGS.graphqlMaxCost.env!,
  aliases: SETTINGS.graphqlMaxAliases.env!,
  directives: SETTINGS.graphqlMaxDirectives.env!,
  tokens: SETTINGS.graphqlMaxTokens.env!,
  fields: SETTINGS.graphqlMaxFields.env!,
  representations: SETTINGS.graphqlMaxRepresentations.env!,
};

const WHAT: Record<LimitName, string> = {
  depth: 'nests fields', cost: 'costs', aliases: 'uses aliases', directives: 'uses directives',
  tokens: 'has lexical tokens', fields: 'selects fields (fragments expanded)',
  representations: 'sends _entities representations:',
};

/** The refusal of a limit: names the limit, its setting, the maximum and what the operation has. */
export function overLimit(limit: LimitName, max: number, found: number | undefined, hint = ''): GraphQLError {
  const has = found === undefined ? `more than ${max}` : String(found);
  return new GraphQLError(
    `The operation ${WHAT[limit]} ${limit === 'depth' ? `${has} deep` : has}; the ${limit} limit is ${max} (${SETTING_OF[limit]}).${hint} Nothing was executed.`,
    { extensions: { code: 'TG_QUERY_TOO_COMPLEX', details: { limit, max, ...(found === undefined ? {} : { found }) }, http: { status: 400, spec: true } } },
  );
}

function foundIn(message: string): number | undefined {
  const match = /found (\d+)/.exec(message);
  return match ? Number(match[1]) : undefined;
}

/** graphql-armor reports through the validation context, so a refusal is a validation error. */
function reportAs(limit: LimitName, max: number) {
  return {
    propagateOnRejection: false,
    onReject: [(context: ValidationContext | null, error: GraphQLError) => context?.reportError(overLimit(limit, max, foundIn(error.message)))],
  };
}

/**
 * Counts the fields an operation selects with every fragment spread expanded where it is used
 * (memoised per fragment, so a fragment "bomb" is counted, never expanded). Introspection roots
 * are not counted, as graphql-armor leaves them out of depth and cost.
 */
function maxFieldsRule(max: number) {
  return (context: ValidationContext): ASTVisitor => {
    const memo = new Map<string, number>();
    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const d of context.getDocument().definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
    const count = (set: SelectionSetNode, visiting: Set<string>, root: boolean): number => {
      let n = 0;
      for (const s of set.selections) {
        if (s.kind === Kind.FIELD) {
          if (root && (s.name.value === '__schema' || s.name.value === '__type')) continue;
          n += 1 + (s.selectionSet ? count(s.selectionSet, visiting, false) : 0);
        } else if (s.kind === Kind.INLINE_FRAGMENT) {
          n += count(s.selectionSet, visiting, root);
        } else {
          const name = s.name.value;
          const fragment = fragments.get(name);
          // A cycle is NoFragmentCyclesRule's to report; it adds nothing here.
          if (fragment === undefined || visiting.has(name)) continue;
          if (!root && memo.has(name)) {
            n += memo.get(name)!;
            continue;
          }
          visiting.add(name);
          const c = count(fragment.selectionSet, visiting, root);
          visiting.delete(name);
          if (!root) memo.set(name, c);
          n += c;
        }
        if (n > max) return n;
      }
      return n;
    };
    return {
      OperationDefinition(node) {
        const n = count(node.selectionSet, new Set(), true);
        if (n > max) context.reportError(overLimit('fields', max, n));
      },
    };
  };
}

/**
 * The operation-shape limits: graphql-armor's depth, aliases and directives (each reported with our
 * code and setting) and our field count. Each is linear in the document (fragments memoised), so the
 * pipeline runs them alone before graphql-js's rules and skips those when one refuses: its
 * OverlappingFieldsCanBeMerged is quadratic in repeated fields, and a document of 12 copies of a
 * field at each of 4 levels took it 527 ms before the field count refused the document anyway.
 */
export function limitRules(limits: GraphqlLimits): ValidationRule[] {
  return [
    maxDepthRule({ n: limits.maxDepth, flattenFragments: true, ignoreIntrospection: true, ...reportAs('depth', limits.maxDepth) }),
    maxAliasesRule({ n: limits.maxAliases, ...reportAs('aliases', limits.maxAliases) }),
    maxDirectivesRule({ n: limits.maxDirectives, ...reportAs('directives', limits.maxDirectives) }),
    maxFieldsRule(limits.maxFields),
  ];
}

/**
 * The static limits that run inside envelop: graphql-armor's token cap (in the parser) and, with
 * introspection off, graphql-js's NoSchemaIntrospectionCustomRule plus the masking of every "Did you
 * mean" hint. The shape limits (limitRules) are not among them: the pipeline runs those alone before
 * envelop's validation, which only sees documents they passed.
 */
export function limitPlugins(limits: GraphqlLimits, introspection: boolean): Plugin[] {
  const armor = new EnvelopArmor({
    // Depth, aliases and directives are limitRules' (the pipeline runs those before envelop's validation).
    maxDepth: { enabled: false },
    maxAliases: { enabled: false },
    maxDirectives: { enabled: false },
    // Cost is priced after variable coercion instead (price-operation.ts): armor sees literal pages only.
    costLimit: { enabled: false },
    maxTokens: {
      n: limits.maxTokens,
      // The lexer has no validation context: refuse by throwing from the parser.
      onReject: [() => { throw overLimit('tokens', limits.maxTokens, undefined); }],
    },
    // Masked by useHiddenSuggestions instead, which catches every form of the hint.
    blockFieldSuggestion: { enabled: false },
  });
  const introspectionOff: Plugin[] = introspection ? [] : [
    { onValidate({ addValidationRule }) { addValidationRule(NoSchemaIntrospectionCustomRule); } },
    useHiddenSuggestions(),
  ];
  return [...(armor.protect().plugins as Plugin[]), ...introspectionOff];
}
