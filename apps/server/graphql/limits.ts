/**
 * Bounds on one GraphQL request, so that one request cannot do the work of a thousand:
 * a limit on tokens (counted by graphql-js's lexer before the document is parsed), graphql-armor's
 * limits on aliases, depth, directives and cost (validation rules, before anything runs), and the request's
 * weight against the rate limit: an operation counts as many requests as it selects root fields
 * (aliases included, at least one); the transport's hook already counted one.
 *
 * Past a limit the request is refused with 400, `extensions.code: BAD_USER_INPUT` and
 * `extensions.reason` naming the limit (docs/API.md, "request limits").
 */
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { Lexer, Source, TokenKind } from 'graphql';
import type {
  DocumentNode,
  FragmentDefinitionNode,
  GraphQLError,
  OperationDefinitionNode,
  SelectionSetNode,
  ValidationRule,
} from 'graphql';
import { createGraphQLError, type Plugin } from 'graphql-yoga';
import { expectedError } from '../../../core/services/index.js';
import { setRateHeaders } from '../auth.js';
import type { GraphQLContext } from './builder.js';
import { requestError } from './errors.js';

/** The limits of one GraphQL operation (docs/API.md, "request limits"). */
export const GRAPHQL_LIMITS = {
  /** Lexical tokens in the document (a 3,000-alias query has about 40,000). */
  tokens: 2_000,
  /** Aliased fields in the operation, fragments expanded. */
  aliases: 20,
  /** Nesting of selections (introspection excepted). */
  depth: 10,
  directives: 30,
  /** graphql-armor's cost: 2 per object field and 1 per scalar field, ×1.5 per level of depth. */
  cost: 5_000,
} as const;

type LimitName = keyof typeof GRAPHQL_LIMITS;

/** armor's error ("Syntax Error: Aliases limit of 20 exceeded, found 21.") in the project's error shape. */
function refusal(limit: LimitName, error: GraphQLError | string): GraphQLError {
  const detail = (typeof error === 'string' ? error : error.message).replace(/^Syntax Error:\s*/, '');
  return createGraphQLError(`Query refused: ${detail}`, {
    extensions: {
      code: 'BAD_USER_INPUT',
      reason: `MAX_${limit.toUpperCase()}`,
      limit: GRAPHQL_LIMITS[limit],
      http: { status: 400 },
    },
  });
}

/** armor's options for one limit: raise our own error instead of armor's. */
function refuseWith(limit: LimitName) {
  return {
    exposeLimits: true,
    propagateOnRejection: false,
    onReject: [
      (_context: unknown, error: GraphQLError) => {
        throw refusal(limit, error);
      },
    ],
  };
}

/** The validation rules bounding aliases, depth, directives and cost. */
export const limitRules: ValidationRule[] = [
  maxAliasesRule({ n: GRAPHQL_LIMITS.aliases, ...refuseWith('aliases') }),
  maxDepthRule({ n: GRAPHQL_LIMITS.depth, ...refuseWith('depth') }),
  maxDirectivesRule({ n: GRAPHQL_LIMITS.directives, ...refuseWith('directives') }),
  costLimitRule({ maxCost: GRAPHQL_LIMITS.cost, ...refuseWith('cost') }),
] as unknown as ValidationRule[];

/** Root fields an operation selects, fragments and aliases expanded: its weight against the rate limit. */
export function rateWeight(document: DocumentNode, operationName?: string | null): number {
  const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition');
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (!operation) return 1;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === 'FragmentDefinition')
      .map((f) => [f.name.value, f]),
  );
  const seen = new Set<string>();
  const count = (set: SelectionSetNode): number =>
    set.selections.reduce((sum, selection) => {
      if (selection.kind === 'Field') return sum + (selection.name.value.startsWith('__') ? 0 : 1);
      if (selection.kind === 'InlineFragment') return sum + count(selection.selectionSet);
      if (seen.has(selection.name.value)) return sum;
      seen.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      return sum + (fragment ? count(fragment.selectionSet) : 0);
    }, 0);
  return Math.max(1, count(operation.selectionSet));
}

/**
 * Refuses a document of more tokens than the limit, stopping at the first token past it.
 * Counted before parsing (not in a parse hook: Yoga answers parse errors 200 to `application/json`
 * clients, as the GraphQL-over-HTTP spec has it for malformed documents, and this is a refusal).
 * A lexical error stops the count: the parser reports it.
 */
export function checkTokens(query: string): void {
  const lexer = new Lexer(new Source(query));
  let count = 0;
  try {
    while (lexer.advance().kind !== TokenKind.EOF) {
      if (++count > GRAPHQL_LIMITS.tokens) throw refusal('tokens', `Token limit of ${GRAPHQL_LIMITS.tokens} exceeded.`);
    }
  } catch (error) {
    if (count > GRAPHQL_LIMITS.tokens) throw error;
  }
}

/** Yoga plugin: the token limit before parsing, the rules at validation, the weight before execution. */
export function useRequestLimits(): Plugin<GraphQLContext> {
  const chargeWeight = async (
    document: DocumentNode,
    operationName: string | null | undefined,
    context: GraphQLContext,
  ) => {
    const principal = context.viewer;
    const extra = rateWeight(document, operationName) - 1;
    if (!principal || extra <= 0) return;
    try {
      setRateHeaders(context.http.reply, await context.services.rateLimits.charge(principal, extra));
    } catch (thrown) {
      const error = expectedError(thrown, context.http.reply.log);
      if (!error) throw thrown;
      if (error.detail.rate) setRateHeaders(context.http.reply, error.detail.rate);
      throw requestError(error);
    }
  };
  return {
    onParams: ({ params }) => {
      if (typeof params.query === 'string') checkTokens(params.query);
    },
    onValidate: ({ addValidationRule }) => {
      for (const rule of limitRules) addValidationRule(rule);
    },
    onExecute: async ({ args }) => {
      await chargeWeight(args.document, args.operationName, args.contextValue);
    },
    onSubscribe: async ({ args }) => {
      await chargeWeight(args.document, args.operationName, args.contextValue);
    },
  };
}
