/**
 * Admin CLI: `npm run admin -- <command> [options]`. Prints exactly one JSON line per command
 * (errors too, as {"error": ...} with exit code 1), so scripts can parse it.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { planIdSchema } from '../../schema/index.js';
import { describeIssue } from '../../core/contract/options.js';
import { ServiceError } from '../../core/services/errors.js';
import { createPino, toLogger } from '../shared/logging.js';
import { loadConfig } from '../shared/config.js';
import { createRuntime, type Runtime } from '../shared/runtime.js';
import { BackupError, backupEmbedded, restoreEmbedded } from './backup.js';

const USAGE = `usage: npm run admin -- <command>
  create-key --plan <free|pro|business|enterprise> [--email E] [--overage]   a new account with one key
  add-key --account ID [--name N]                 another key for an account (its e-mail must be verified)
  list-keys --account ID
  revoke-key --key K | --account ID --id KEY_ID
  find-account --email E                          the account that signs in with E
  verify-email --account ID                       mark the address verified without the link
  set-password --account ID                       reads the new password from stdin; ends the account's sessions
  set-plan --account ID --plan <free|pro|business|enterprise>
  set-usage --account ID --used N
  set-limits --account ID [--credits N] [--rpm N]  an Enterprise account's monthly credits and requests per minute
  backup DIR                                      copy the embedded store and its files into DIR (service running)
  restore DIR                                     fill an empty DATA_DIR from the backup in DIR (service stopped)`;

const accountId = z.string().min(1);

async function existingAccount(rt: Runtime, id: string) {
  const account = await rt.services.accounts.getAccount(id);
  if (!account) throw new ServiceError('NOT_FOUND', `No account ${id}`);
  return account;
}

/** One line from stdin (the password is never an argument: arguments show in `ps` and shell history). */
async function readSecretLine(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('New password: ');
  let input = '';
  for await (const chunk of process.stdin) {
    input += String(chunk);
    if (input.includes('\n')) break;
  }
  return input.split(/\r?\n/)[0] ?? '';
}

const commands = {
  'create-key': {
    options: z.object({ plan: planIdSchema, email: z.email().optional(), overage: z.boolean().default(false) }),
    async run(rt: Runtime, o: { plan: z.infer<typeof planIdSchema>; email?: string; overage: boolean }) {
      const account = await rt.services.accounts.createAccount({
        plan: o.plan,
        email: o.email ?? null,
        overageEnabled: o.overage,
      });
      const { key } = await rt.services.accounts.createKey(account.id);
      return { accountId: account.id, key, plan: account.plan };
    },
  },
  'set-usage': {
    options: z.object({ account: accountId, used: z.coerce.number().int().min(0) }),
    async run(rt: Runtime, o: { account: string; used: number }) {
      await existingAccount(rt, o.account);
      await rt.services.credits.setUsed(o.account, o.used);
      const account = (await rt.services.accounts.getAccount(o.account))!;
      const balance = await rt.services.credits.balance(account);
      return { accountId: o.account, creditsUsed: balance.creditsUsed, creditsRemaining: balance.creditsRemaining };
    },
  },
  'add-key': {
    options: z.object({ account: accountId, name: z.string().optional() }),
    async run(rt: Runtime, o: { account: string; name?: string }) {
      const { key, record } = await rt.services.accounts.createKey(o.account, o.name ?? null);
      return { accountId: o.account, keyId: record.id, key };
    },
  },
  'list-keys': {
    options: z.object({ account: accountId }),
    async run(rt: Runtime, o: { account: string }) {
      await existingAccount(rt, o.account);
      const keys = await rt.services.accounts.listKeys(o.account);
      return {
        accountId: o.account,
        keys: keys.map((k) => ({
          id: k.id,
          prefix: k.prefix,
          ...(k.name ? { name: k.name } : {}),
          createdAt: k.createdAt.toISOString(),
          ...(k.lastUsedAt ? { lastUsedAt: k.lastUsedAt.toISOString() } : {}),
          ...(k.revokedAt ? { revokedAt: k.revokedAt.toISOString() } : {}),
        })),
      };
    },
  },
  'revoke-key': {
    options: z.union([
      z.object({ key: z.string().min(1) }).strict(),
      z.object({ account: accountId, id: z.string().min(1) }).strict(),
    ]),
    async run(rt: Runtime, o: { key: string } | { account: string; id: string }) {
      if ('key' in o) {
        if (!(await rt.services.accounts.revokeKey(o.key)))
          throw new ServiceError('NOT_FOUND', 'No active key matches');
      } else {
        await rt.services.accounts.revokeKeyById(o.account, o.id);
      }
      return { revoked: true };
    },
  },
  'find-account': {
    options: z.object({ email: z.string().min(1) }),
    async run(rt: Runtime, o: { email: string }) {
      const account = await rt.services.sessions.findAccountByEmail(o.email);
      if (!account) throw new ServiceError('NOT_FOUND', 'No account signs in with this e-mail address');
      return {
        accountId: account.id,
        email: account.email,
        emailVerified: account.emailVerified,
        plan: account.plan,
        createdAt: account.createdAt.toISOString(),
      };
    },
  },
  'verify-email': {
    options: z.object({ account: accountId }),
    async run(rt: Runtime, o: { account: string }) {
      const account = await rt.services.accounts.markEmailVerified(o.account);
      return { accountId: account.id, email: account.email, emailVerified: true };
    },
  },
  'set-password': {
    options: z.object({ account: accountId }),
    async run(rt: Runtime, o: { account: string }) {
      const account = await rt.services.sessions.setPassword(o.account, await readSecretLine());
      return { accountId: account.id, email: account.email, passwordSet: true };
    },
  },
  'set-plan': {
    options: z.object({ account: accountId, plan: planIdSchema }),
    async run(rt: Runtime, o: { account: string; plan: z.infer<typeof planIdSchema> }) {
      const account = await rt.services.accounts.setPlan(o.account, o.plan);
      return { accountId: account.id, plan: account.plan };
    },
  },
  'set-limits': {
    options: z
      .object({
        account: accountId,
        credits: z.coerce.number().int().min(0).optional(),
        rpm: z.coerce.number().int().min(1).optional(),
      })
      .refine((o) => o.credits !== undefined || o.rpm !== undefined, {
        message: 'give --credits, --rpm or both',
        path: ['credits'],
      }),
    async run(rt: Runtime, o: { account: string; credits?: number; rpm?: number }) {
      const account = await rt.services.accounts.setLimits(o.account, {
        ...(o.credits !== undefined ? { creditsIncluded: o.credits } : {}),
        ...(o.rpm !== undefined ? { requestsPerMinute: o.rpm } : {}),
      });
      const limits = rt.services.accounts.limitsOf(account);
      return {
        accountId: account.id,
        plan: account.plan,
        creditsIncluded: limits.creditsIncluded,
        requestsPerMinute: limits.requestsPerMinute,
      };
    },
  },
} as const;

/** backup DIR / restore DIR: files, not the runtime (a restore must not create the store it fills). */
async function backupCommand(name: 'backup' | 'restore', args: string[]): Promise<number> {
  const { positionals } = parseArgs({ args, options: {}, allowPositionals: true, strict: true });
  if (positionals.length !== 1) {
    console.log(JSON.stringify({ error: `${name} takes one folder: npm run admin -- ${name} DIR`, usage: USAGE }));
    return 1;
  }
  const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' });
  if (config.postgresUrl || config.mongodbUrl) {
    console.log(
      JSON.stringify({
        error:
          `${name} is for the embedded mode; with POSTGRES_URL or MONGODB_URL back up the database and the ` +
          'bucket (docs/SCALE-OUT.md)',
      }),
    );
    return 1;
  }
  const folder = path.resolve(positionals[0]!);
  try {
    const result =
      name === 'backup' ? await backupEmbedded(config.dataDir, folder) : await restoreEmbedded(folder, config.dataDir);
    console.log(JSON.stringify(result));
    return 0;
  } catch (err) {
    if (!(err instanceof BackupError)) throw err;
    console.log(JSON.stringify({ error: err.message }));
    return 1;
  }
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === 'backup' || name === 'restore') return backupCommand(name, rest);
  const command = name ? commands[name as keyof typeof commands] : undefined;
  if (!command) {
    console.log(JSON.stringify({ error: name ? `Unknown command '${name}'` : 'Missing command', usage: USAGE }));
    return 1;
  }
  const { values } = parseArgs({
    args: rest,
    options: {
      plan: { type: 'string' },
      email: { type: 'string' },
      overage: { type: 'boolean' },
      account: { type: 'string' },
      used: { type: 'string' },
      key: { type: 'string' },
      id: { type: 'string' },
      name: { type: 'string' },
      credits: { type: 'string' },
      rpm: { type: 'string' },
    },
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
