/**
 * Admin CLI: `npm run admin -- <command> [options]`. Prints exactly one JSON line per command
 * (errors too, as {"error": ...} with exit code 1), so scripts can parse it.
 */
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { planIdSchema } from '../../schema/index.js';
import { describeIssue } from '../../core/contract/options.js';
import { ServiceError } from '../../core/services/errors.js';
import { createPino, toLogger } from '../shared/logging.js';
import { loadConfig } from '../shared/config.js';
import { createRuntime, type Runtime } from '../shared/runtime.js';

const USAGE = `usage: npm run admin -- <command>
  create-key --plan <free|pro|business|enterprise> [--email E] [--overage]
  set-usage --account ID --used N
  list-keys --account ID
  revoke-key --key K`;

const commands = {
  'create-key': {
    options: z.object({ plan: planIdSchema, email: z.email().optional(), overage: z.boolean().default(false) }),
    async run(rt: Runtime, o: { plan: z.infer<typeof planIdSchema>; email?: string; overage: boolean }) {
      const account = await rt.services.accounts.createAccount({ plan: o.plan, email: o.email ?? null, overageEnabled: o.overage });
      const { key } = await rt.services.accounts.createKey(account.id);
      return { accountId: account.id, key, plan: account.plan };
    },
  },
  'set-usage': {
    options: z.object({ account: z.string().min(1), used: z.coerce.number().int().min(0) }),
    async run(rt: Runtime, o: { account: string; used: number }) {
      if (!(await rt.services.accounts.getAccount(o.account))) throw new ServiceError('NOT_FOUND', `No account ${o.account}`);
      await rt.services.credits.setUsed(o.account, o.used);
      const account = (await rt.services.accounts.getAccount(o.account))!;
      const balance = await rt.services.credits.balance(account);
      return { accountId: o.account, creditsUsed: balance.creditsUsed, creditsRemaining: balance.creditsRemaining };
    },
  },
  'list-keys': {
    options: z.object({ account: z.string().min(1) }),
    async run(rt: Runtime, o: { account: string }) {
      if (!(await rt.services.accounts.getAccount(o.account))) throw new ServiceError('NOT_FOUND', `No account ${o.account}`);
      const keys = await rt.services.accounts.listKeys(o.account);
      return {
        accountId: o.account,
        keys: keys.map((k) => ({ prefix: k.prefix, createdAt: k.createdAt.toISOString(), ...(k.revokedAt ? { revokedAt: k.revokedAt.toISOString() } : {}) })),
      };
    },
  },
  'revoke-key': {
    options: z.object({ key: z.string().min(1) }),
    async run(rt: Runtime, o: { key: string }) {
      if (!(await rt.services.accounts.revokeKey(o.key))) throw new ServiceError('NOT_FOUND', 'No active key matches');
      return { revoked: true };
    },
  },
} as const;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  const command = name ? commands[name as keyof typeof commands] : undefined;
  if (!command) {
    console.log(JSON.stringify({ error: name ? `Unknown command '${name}'` : 'Missing command', usage: USAGE }));
    return 1;
  }
  const { values } = parseArgs({
    args: rest,
    options: { plan: { type: 'string' }, email: { type: 'string' }, overage: { type: 'boolean' }, account: { type: 'string' }, used: { type: 'string' }, key: { type: 'string' } },
    strict: true,
  });
  const parsed = command.options.safeParse(values);
  if (!parsed.success) {
    console.log(JSON.stringify({ error: `Invalid ${describeIssue(parsed.error)}`, usage: USAGE }));
    return 1;
  }
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  const runtime = await createRuntime({ config, log: toLogger(createPino(config)), plugins: [] });
  try {
    const result = await (command.run as (rt: Runtime, o: unknown) => Promise<unknown>)(runtime, parsed.data);
    console.log(JSON.stringify(result));
    return 0;
  } catch (err) {
    if (!(err instanceof ServiceError)) throw err;
    console.log(JSON.stringify({ error: err.message }));
    return 1;
  } finally {
    await runtime.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: Error) => {
    console.log(JSON.stringify({ error: err.message }));
    process.exit(1);
  },
);
