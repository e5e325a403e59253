/**
 * The account panel's operations: sign-up, sign-in and sign-out (browser session cookies, see
 * ../session-cookies.ts), e-mail verification, API keys and the overage switch. The rules live in
 * SessionService and AccountService; this file maps them onto GraphQL and the cookies.
 *
 * `Me` is read from the wire account's zod (schema/wire.ts accountSchema) beside the fields its plan
 * decides, and setOverage answers the generated `Credits`. The rest is written here by hand because
 * no other surface has it, so there is no REST or tRPC zod to read it from: the session mutations
 * (signUp, signIn, signOut, verifyEmail, resendVerificationEmail) set or clear cookies on the HTTP
 * exchange, which the operation table's transport-neutral handlers do not see, and the key panel
 * (ApiKey, CreatedApiKey, apiKeys, createApiKey, revokeApiKey) is the web app's: no REST route or tRPC
 * procedure manages keys, and its store type (dates as Date) has no wire zod.
 */
import type { z } from 'zod';
import { FEATURE_MIN_PLAN, PLANS, accountSchema, planAtLeast, type Credits } from '../../../schema/index.js';
import { ServiceError, type Principal } from '../../../core/services/index.js';
import type { ApiKeySummary } from '../../../core/services/accounts.js';
import type { SessionGrant } from '../../../core/services/sessions.js';
import type { Account } from '../../../core/store/types.js';
import type { ObjectRef } from '@pothos/core';
import type { Plugin } from 'graphql-yoga';
import { CSRF_FAILURE } from '../auth.js';
import { SESSION_COOKIE, clearSessionCookies, startSessionCookies, CSRF_HEADER } from '../session-cookies.js';
import type { Builder, GraphQLContext, SchemaTypes } from './builder.js';
import { requestError } from './errors.js';
import type { ServerContext } from './uploads.js';
import { addZodObject } from './zod-objects.js';

/**
 * A request without credentials (sign-up, sign-in) must be one a page of another site cannot
 * send: JSON (or carrying X-CSRF-Token), which a cross-site form cannot produce and fetch cannot
 * send without a CORS preflight. Otherwise a forged form could sign a victim into the attacker's account.
 */
export function useSignInForgeryGuard(): Plugin<object, ServerContext> {
  return {
    onRequestParse({ request, serverContext }) {
      if (
        !serverContext.req.anonymous ||
        request.method === 'GET' ||
        request.method === 'HEAD' ||
        request.method === 'OPTIONS'
      )
        return;
      const type = request.headers.get('content-type')?.toLowerCase() ?? '';
      if (type.startsWith('multipart/form-data')) return; // refused with 401 by the upload reader: files need a key
      if (
        type.startsWith('application/json') ||
        type.startsWith('application/graphql-response+json') ||
        request.headers.has(CSRF_HEADER)
      )
        return;
      throw requestError(new ServiceError('FORBIDDEN', CSRF_FAILURE));
    },
  };
}

/** An error the contract answers with its HTTP status too (key generation while unverified: 403). */
function withStatus<T>(run: () => Promise<T>): Promise<T> {
  return run().catch((error: unknown) => {
    throw error instanceof ServiceError && error.code === 'FORBIDDEN' ? requestError(error) : error;
  });
}

export function addAccount(
  builder: Builder,
  CreditsRef: ObjectRef<PothosSchemaTypes.ExtendDefaultTypes<SchemaTypes>, Credits>,
) {
  // The account's own fields are the wire account's; the rest is computed from its plan.
  const MeRef = addZodObject<z.ZodRawShape, Account>(builder, 'Me', accountSchema, {
    description: 'The signed-in account (or the account of the API key sent).',
    types: { id: 'ID' },
    omit: ['plan', 'overageEnabled'],
    extra: (t) => ({
      plan: t.string({
        description: 'The plan\'s name, e.g. "Free" (as `credits.plan`).',
        resolve: (a) => PLANS[a.plan].label,
      }),
      planId: t.string({ description: accountSchema.shape.plan.description!, resolve: (a) => a.plan }),
      overageAvailable: t.boolean({
        description: 'Whether the plan offers pay-as-you-go (setOverage).',
        resolve: (a) => PLANS[a.plan].overageAvailable,
      }),
      overageEnabled: t.boolean({
        description: accountSchema.shape.overageEnabled.description!,
        // Off where the plan has none (Enterprise), whatever the stored switch says.
        resolve: (a) => a.overageEnabled && PLANS[a.plan].overageAvailable,
      }),
      signedUrlsAvailable: t.boolean({
        description: 'Whether the plan offers signed URLs (createSignedUrl): Business and up.',
        resolve: (a) => planAtLeast(a.plan, FEATURE_MIN_PLAN['signed-urls']),
      }),
      createdAt: t.field({
        type: 'DateTime',
        description: 'When the account was created.',
        resolve: (a) => a.createdAt,
      }),
    }),
  });

  const ApiKeyRef = builder.objectRef<ApiKeySummary>('ApiKey').implement({
    description: 'An API key as listed: never the key itself, which is shown once, at generation.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'The key id (revokeApiKey).' }),
      prefix: t.exposeString('prefix', { description: 'The first characters of the key, e.g. "ck_live_AbCd".' }),
      name: t.exposeString('name', { nullable: true, description: 'The name given at generation.' }),
      createdAt: t.field({ type: 'DateTime', description: 'When the key was generated.', resolve: (k) => k.createdAt }),
      lastUsedAt: t.field({
        type: 'DateTime',
        nullable: true,
        description: 'The last request with it (to the minute); null when never used.',
        resolve: (k) => k.lastUsedAt ?? null,
      }),
    }),
  });

  const CreatedApiKeyRef = builder.objectRef<{ key: string; apiKey: ApiKeySummary }>('CreatedApiKey').implement({
    description: 'A key just generated: the key itself, shown this once, and its listing.',
    fields: (t) => ({
      key: t.exposeString('key', { description: 'The full key. Shown this once: only its digest is kept.' }),
      apiKey: t.field({
        type: ApiKeyRef,
        description: 'The key as apiKeys lists it.',
        resolve: (created) => created.apiKey,
      }),
    }),
  });

  /** Set the cookies of a new session, ending the one the request came with (if any). */
  async function signedIn(ctx: GraphQLContext, grant: SessionGrant): Promise<Account> {
    const previous = ctx.http.request.cookies[SESSION_COOKIE];
    if (previous) await ctx.services.sessions.signOut(previous);
    startSessionCookies(ctx.http.request, ctx.http.reply, ctx.http.cookies, grant);
    return grant.account;
  }

  /** The caller's account as stored now (the principal's copy was read at the start of the request). */
  async function currentAccount(ctx: GraphQLContext, principal: Principal): Promise<Account> {
    return (await ctx.services.accounts.getAccount(principal.account.id)) ?? principal.account;
  }

  builder.queryFields((t) => ({
    me: t.field({
      type: MeRef,
      nullable: true,
      description: "The signed-in account, or the API key's; null without credentials (no error).",
      resolve: (_root, _args, ctx) => (ctx.viewer ? currentAccount(ctx, ctx.viewer) : null),
    }),
    apiKeys: t.field({
      type: [ApiKeyRef],
      description: "The account's API keys in force, newest first.",
      resolve: (_root, _args, { services, principal }) => services.accounts.listActiveKeys(principal.account.id),
    }),
  }));

  builder.mutationFields((t) => ({
    signUp: t.field({
      type: MeRef,
      description:
        'Creates a Free account (e-mail unverified), signs it in (sets the session cookies) and sends the ' +
        'verification mail. A taken address: BAD_USER_INPUT.',
      args: {
        email: t.arg.string({ required: true, description: 'The e-mail address to sign in with.' }),
        password: t.arg.string({ required: true, description: '10 to 256 characters.' }),
      },
      resolve: async (_root, { email, password }, ctx) =>
        signedIn(ctx, await ctx.services.sessions.signUp({ email, password, ip: ctx.http.request.ip })),
    }),
    signIn: t.field({
      type: MeRef,
      description:
        'Signs in (sets the session cookies). A wrong address or password: UNAUTHENTICATED "Wrong e-mail or password".',
      args: {
        email: t.arg.string({ required: true, description: 'The address signed up with.' }),
        password: t.arg.string({ required: true, description: 'The account password (never stored or logged).' }),
      },
      resolve: async (_root, { email, password }, ctx) =>
        signedIn(ctx, await ctx.services.sessions.signIn({ email, password, ip: ctx.http.request.ip })),
    }),
    signOut: t.boolean({
      description:
        'Ends the browser session server-side and clears its cookies; false when the request had no session.',
      resolve: async (_root, _args, ctx) => {
        const token = ctx.http.request.cookies[SESSION_COOKIE];
        clearSessionCookies(ctx.http.request, ctx.http.reply, ctx.http.cookies);
        if (!token) return false;
        await ctx.services.sessions.signOut(token);
        return true;
      },
    }),
    verifyEmail: t.field({
      type: MeRef,
      description:
        'Verifies the address with the token of the mailed link (works signed in or not). Unknown, used or expired: ' +
        'BAD_USER_INPUT.',
      args: { token: t.arg.string({ required: true, description: 'The token of the verification link.' }) },
      resolve: (_root, { token }, { services }) => services.sessions.verifyEmail(token),
    }),
    resendVerificationEmail: t.boolean({
      description:
        'Sends a new verification link (older links stop working). False when the mail could not be handed to the ' +
        'mail server; try again later.',
      resolve: async (_root, _args, ctx) =>
        ctx.services.sessions.resendVerification(await currentAccount(ctx, ctx.principal)),
    }),
    createApiKey: t.field({
      type: CreatedApiKeyRef,
      description:
        'Generates a key; the full key is in the answer only. FORBIDDEN (HTTP 403) while the e-mail address is ' +
        'unverified.',
      args: { name: t.arg.string({ description: 'A label, up to 100 characters.' }) },
      resolve: (_root, { name }, { services, principal }) =>
        withStatus(async () => {
          const { key, record } = await services.accounts.createKey(principal.account.id, name ?? null);
          return {
            key,
            apiKey: {
              id: record.id,
              prefix: record.prefix,
              createdAt: record.createdAt,
              revokedAt: null,
              name: record.name ?? null,
              lastUsedAt: null,
            },
          };
        }),
    }),
    revokeApiKey: t.boolean({
      description: "Revokes one of the account's keys at once. Unknown or another account's: NOT_FOUND.",
      args: { id: t.arg.id({ required: true, description: 'The key id (ApiKey.id).' }) },
      resolve: async (_root, { id }, { services, principal }) => {
        await services.accounts.revokeKeyById(principal.account.id, String(id));
        return true;
      },
    }),
    setOverage: t.field({
      type: CreditsRef,
      description:
        'Pay-as-you-go on or off; FORBIDDEN (reason plan_required) where the plan does not offer it (Enterprise).',
      args: { enabled: t.arg.boolean({ required: true, description: 'Pay-as-you-go on (true) or off.' }) },
      resolve: async (_root, { enabled }, { services, principal }) =>
        services.credits.balance(await services.accounts.setOverage(principal.account.id, enabled)),
    }),
  }));
}
