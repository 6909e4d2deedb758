/**
 * Admin command line: `npm run --silent admin -- <verb> [options]`. Manages accounts, users and API keys, which
 * the public interface only verifies. Creates and migrates the database when needed.
 */
import { pathToFileURL } from 'node:url';
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
import { rotateSettingsKey, SETTINGS_KEY_USAGE } from './admin-settings-key.js';
import { withSettingsKeyFile } from '../launcher/settings-key.js';
import { BUNDLE_OPTIONS, BUNDLE_USAGE, bundleVerbs } from './admin-bundle-verbs.js';
import { USER_OPTIONS, USER_USAGE, userVerbs } from './admin-user-verbs.js';

const USAGE = `usage: npm run --silent admin -- <verb> [options] [--json]

  bootstrap   --account NAME --email EMAIL     new account with one user, a USER key and a GENERAL key
  create-user --account ID --email EMAIL       add a user to an account
  user-key    --user ID [--label TEXT]         issue a USER key (at most 5 live per user)
  general-key --account ID [--label TEXT]      issue a GENERAL (account-wide) key
  keys        --account ID                     list live keys (prefix, kind, created, last used; never the key)
  revoke-key  --key ID|PREFIX                  revoke a key by id or by its visible prefix${USER_USAGE}
  credits     --account ID [--set N|--unlimited]  show or set the credit balance (at 0 or below runs stop
                                               with insufficient_credits; unlimited by default)
  outbox      [--requeue ID|all]               list outbox events parked after failing to dispatch too often,
                                               or put one (or all) back in the queue
${CATALOG_USAGE}
${SETTINGS_KEY_USAGE}
${BUNDLE_USAGE}

SETTINGS_ENCRYPTION_KEY seals stored secrets; when it is unset, the key file npm start keeps in the data folder
(.data/settings.key) is used.

Keys and generated passwords are shown once; only hashes of them are stored (SHA-256, scrypt).`;

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
};

/** Every verb, the catalog's sealing third-party secrets with the SETTINGS_ENCRYPTION_KEY of `env`. */
const verbsFor = (env: NodeJS.ProcessEnv, keyFile: string | null): Record<string, Verb> => ({
  ...verbs,
  ...userVerbs({ required, id }),
  'rotate-settings-key': (em, o) => rotateSettingsKey(em, o, { key: loadConfig(env).settingsKey, keyFile }, (message) => new UsageError(message)),
  ...bundleVerbs({ required, id, usage: (message) => new UsageError(message), secrets: () => null }),
  ...catalogVerbs({
    required,
    id,
    usage: (message) => new UsageError(message),
    secrets: () => {
      const key = loadConfig(env).settingsKey;
      return key ? SecretBox.fromKey(key) : null;
    },
  }),
});

/** What one command printed: its standard output and error, and the exit code. */
export interface AdminResult {
  code: number;
  stdout: string;
  stderr: string;
}

async function main(argv: string[], given: NodeJS.ProcessEnv, print: (text: string) => void): Promise<number> {
  const { env, keyFile } = withSettingsKeyFile(given);
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
      'new-key': { type: 'string' },
      ...USER_OPTIONS,
      ...CATALOG_OPTIONS,
      ...BUNDLE_OPTIONS,
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const verb = positionals[0];
  if (values.help || !verb) {
    print(USAGE);
    return verb || values.help ? 0 : 2;
  }
  const run = verbsFor(env, keyFile)[verb];
  if (!run) throw new UsageError(`unknown verb "${verb}"`);
  const config = loadConfig(env);
  await ensureDatabase(config.databaseUrl);
  const orm = await initORM({ databaseUrl: config.databaseUrl, poolMax: 2 });
  try {
    await migrate(orm);
    const result = await run(orm.em.fork(), values);
    print(values.json ? JSON.stringify(result.json) : result.text);
    return 0;
  } finally {
    await orm.close();
  }
}

/**
 * Runs one command as `npm run admin -- ...argv` would, with `env` for its configuration: answers what it printed and
 * its exit code. A usage error exits 2, a refused request 1; anything else is a bug and is thrown.
 */
export async function runAdmin(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<AdminResult> {
  let stdout = '';
  try {
    const code = await main(argv, env, (text) => (stdout += `${text}\n`));
    return { code, stdout, stderr: '' };
  } catch (error) {
    if (error instanceof UsageError) return { code: 2, stdout, stderr: `error: ${error.message}\n\n${USAGE}\n` };
    if (error instanceof AppError || (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      return { code: 1, stdout, stderr: `error: ${(error as Error).message}\n` };
    }
    throw error;
  }
}

// Started as a program (not imported by the tests): run the command line. No top-level await, so the tests can load
// this module as they load the rest.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  void runAdmin(process.argv.slice(2)).then((result) => {
    process.stdout.write(result.stdout);
    process.stderr.write(result.stderr);
    process.exitCode = result.code;
  });
}
