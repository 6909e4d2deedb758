/**
 * Admin command line: `npm run --silent admin -- <verb> [options]`. Manages accounts, users and API keys, which
 * the public interface only verifies. Creates and migrates the database when needed.
 */
import { parseArgs } from 'node:util';
import type { EntityManager } from '@mikro-orm/postgresql';
import { loadConfig } from '../lib/config.js';
import { AppError } from '../lib/errors.js';
import { SecretBox } from '../lib/secret-box.js';
import { ensureDatabase } from '../db/database.js';
import { initORM, migrate } from '../db/orm.js';
import { bootstrapAccount, createUser, creditBalance, userView } from '../db/accounts/accounts.service.js';
import { issueGeneralKey, issueUserKey, listKeys, revokeKey } from '../db/accounts/api-keys.service.js';
import { listParkedEvents, requeueParkedEvents } from '../db/automations/event-subscribers.js';
import { CATALOG_OPTIONS, CATALOG_USAGE, catalogVerbs } from './admin-catalog-verbs.js';

const USAGE = `usage: npm run --silent admin -- <verb> [options] [--json]

  bootstrap   --account NAME --email EMAIL     new account with one user, a USER key and a GENERAL key
  create-user --account ID --email EMAIL       add a user to an account
  user-key    --user ID [--label TEXT]         issue a USER key (at most 5 live per user)
  general-key --account ID [--label TEXT]      issue a GENERAL (account-wide) key
  keys        --account ID                     list live keys (prefix, kind, created, last used; never the key)
  revoke-key  --key ID|PREFIX                  revoke a key by id or by its visible prefix
  credits     --account ID [--set N|--unlimited]  show or set the credit balance (at 0 or below runs stop
                                               with insufficient_credits; unlimited by default)
  outbox      [--requeue ID|all]               list outbox events parked after failing to dispatch too often,
                                               or put one (or all) back in the queue
${CATALOG_USAGE}

Keys are shown once, when issued; only their SHA-256 hashes are stored.`;

class UsageError extends Error {}

type Options = Record<string, string | boolean | undefined>;

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function id(options: Options, name: string): number {
  const value = Number(required(options, name));
  if (!Number.isInteger(value) || value <= 0) throw new UsageError(`--${name} must be a positive integer`);
  return value;
}

type Verb = (em: EntityManager, options: Options) => Promise<{ json: unknown; text: string }>;

const verbs: Record<string, Verb> = {
  async bootstrap(em, o) {
    const r = await bootstrapAccount(em, required(o, 'account'), required(o, 'email'));
    const text = [
      `account ${r.account.id} "${r.account.name}" (namespace ${r.account.namespace})`,
      `user    ${r.user.id} ${r.user.email}`,
      `USER key (shown once):    ${r.userKey}`,
      `GENERAL key (shown once): ${r.generalKey}`,
    ].join('\n');
    return { json: r, text };
  },
  async 'create-user'(em, o) {
    const user = userView(await createUser(em, id(o, 'account'), required(o, 'email')));
    return { json: { user }, text: `user ${user.id} ${user.email}` };
  },
  async 'user-key'(em, o) {
    const key = await em.transactional((tx) => issueUserKey(tx, id(o, 'user'), o.label as string | undefined));
    return { json: key, text: `USER key ${key.id} (shown once): ${key.key}` };
  },
  async 'general-key'(em, o) {
    const key = await issueGeneralKey(em, id(o, 'account'), o.label as string | undefined);
    return { json: key, text: `GENERAL key ${key.id} (shown once): ${key.key}` };
  },
  async keys(em, o) {
    const keys = await listKeys(em, id(o, 'account'));
    const lines = keys.map(
      (k) =>
        `${String(k.id).padEnd(6)} ${k.prefix}…  ${k.kind.padEnd(7)} user ${String(k.userId ?? '-').padEnd(5)} ` +
        `created ${k.createdAt}  last used ${k.lastUsedAt ?? 'never'}${k.label ? `  ${k.label}` : ''}`,
    );
    return { json: { keys }, text: lines.length ? lines.join('\n') : 'no live keys' };
  },
  async 'revoke-key'(em, o) {
    const raw = required(o, 'key');
    const key = await revokeKey(em, /^\d+$/.test(raw) ? Number(raw) : raw);
    return { json: { revoked: key }, text: `revoked ${key.kind} key ${key.id} (${key.prefix}…)` };
  },
  async credits(em, o) {
    if (o.set !== undefined && o.unlimited) throw new UsageError('--set and --unlimited exclude each other');
    const amount = o.set === undefined ? undefined : Number(o.set);
    if (amount !== undefined && !Number.isFinite(amount)) throw new UsageError('--set must be a number');
    const balance = await creditBalance(em, id(o, 'account'), o.unlimited ? null : amount);
    return {
      json: { accountId: id(o, 'account'), creditBalance: balance },
      text: `account ${id(o, 'account')}: ${balance === null ? 'unlimited credits' : `${balance} credits`}`,
    };
  },
  async outbox(em, o) {
    const knex = em.getKnex();
    if (o.requeue !== undefined) {
      const target = required(o, 'requeue');
      if (target !== 'all' && !/^\d+$/.test(target)) throw new UsageError('--requeue takes an event id or "all"');
      const requeued = await requeueParkedEvents(knex, target === 'all' ? undefined : [target]);
      return { json: { requeued }, text: `requeued ${requeued} parked event${requeued === 1 ? '' : 's'}` };
    }
    const parked = await listParkedEvents(knex);
    const lines = parked.map(
      (e) =>
        `${e.id.padEnd(8)} account ${String(e.accountId).padEnd(5)} ${e.type.padEnd(24)} ${e.attempts} attempts, parked ${e.parkedAt}: ${e.lastError ?? ''}`,
    );
    return { json: { parked }, text: lines.length ? lines.join('\n') : 'no parked events' };
  },
  ...catalogVerbs({
    required,
    id,
    usage: (message) => new UsageError(message),
    secrets: () => {
      const key = loadConfig().settingsKey;
      return key ? SecretBox.fromKey(key) : null;
    },
  }),
};

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      account: { type: 'string' },
      email: { type: 'string' },
      user: { type: 'string' },
      key: { type: 'string' },
      label: { type: 'string' },
      set: { type: 'string' },
      unlimited: { type: 'boolean', default: false },
      requeue: { type: 'string' },
      ...CATALOG_OPTIONS,
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const verb = positionals[0];
  if (values.help || !verb) {
    console.log(USAGE);
    return verb || values.help ? 0 : 2;
  }
  const run = verbs[verb];
  if (!run) throw new UsageError(`unknown verb "${verb}"`);
  const config = loadConfig();
  await ensureDatabase(config.databaseUrl);
  const orm = await initORM({ databaseUrl: config.databaseUrl, poolMax: 2 });
  try {
    await migrate(orm);
    const result = await run(orm.em.fork(), values);
    console.log(values.json ? JSON.stringify(result.json) : result.text);
    return 0;
  } finally {
    await orm.close();
  }
}

try {
  process.exitCode = await main(process.argv.slice(2));
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`error: ${error.message}\n\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof AppError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    console.error(`error: ${(error as Error).message}`);
    process.exitCode = 1;
  } else {
    throw error;
  }
}
