/**
 * The settings key of a checkout and the verbs around sealed secrets: the admin command line uses the key file npm
 * start keeps when SETTINGS_ENCRYPTION_KEY is unset; without any key a verb that would store a secret writes nothing;
 * numbers and pages can be removed again; rotate-settings-key re-seals every secret, all or nothing.
 */
import { mkdtempSync, readFileSync, statSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Knex } from '@mikro-orm/postgresql';
import { expect } from 'chai';
import { dropDatabase } from '../../db/database.js';
import { sealedColumns } from '../../db/sealed-secrets.js';
import { ensureSettingsKeyFile } from '../../launcher/settings-key.js';
import { SecretBox } from '../../lib/secret-box.js';
import { adminWith } from '../setup/admin-cli.js';
import { harness, migratedDatabase } from '../setup/harness.js';
import { newAccount } from '../setup/http.js';
import { newAgent } from '../api/agents/agent-calls.helpers.js';

const freshDataDir = () => mkdtempSync(join(tmpdir(), 'agentry-data-'));
const secretsOf = (dir: string) => ({ SETTINGS_ENCRYPTION_KEY: '', AGENTRY_DATA_DIR: dir });
/** `channel-settings`: the connection receives messages, with this app secret and access token. */
const receive = (env: NodeJS.ProcessEnv, account: string, channel: string, id: string, appSecret: string, accessToken: string) =>
  adminWith(
    env,
    'channel-settings',
    '--account',
    account,
    '--channel',
    channel,
    '--id',
    id,
    '--verify-token',
    'v',
    '--app-secret',
    appSecret,
    '--access-token',
    accessToken,
    '--json',
  );
const json = (result: { code: number; stdout: string; stderr: string }) => {
  expect(result.code, result.stderr).to.equal(0);
  return JSON.parse(result.stdout);
};

describe('admin command line: the settings key', function () {
  this.timeout(60_000);

  it("uses the data folder's key file when SETTINGS_ENCRYPTION_KEY is unset; with no key at all it stores nothing", async () => {
    const dir = freshDataDir();
    const file = ensureSettingsKeyFile(dir);
    expect(file.created).to.equal(true);
    expect(statSync(file.path).mode & 0o777, 'readable by its owner only').to.equal(0o600);
    expect(ensureSettingsKeyFile(dir), 'made once').to.deep.equal({ ...file, created: false });

    const a = await newAccount();
    const account = String(a.account.id);
    const agent = (await newAgent(a)).id;
    for (const id of ['771001', '771002'])
      json(await adminWith({}, 'connect-number', '--account', account, '--phone', `+1415${id}0`, '--phone-number-id', id, '--json'));
    const settings = (id: string, dataDir: string) =>
      adminWith(
        secretsOf(dataDir),
        'channel-settings',
        '--account',
        account,
        '--channel',
        'messaging',
        '--id',
        id,
        '--assistant',
        agent,
        '--verify-token',
        'vt',
        '--app-secret',
        'app-secret-1',
        '--access-token',
        'token-1234',
        '--json',
      );

    expect(json(await settings('771001', dir)).settings).to.include({ receives: true, agentId: agent });
    const row = await harness().orm.em.getKnex()('messaging_numbers').where({ phone_number_id: '771001' }).first();
    expect(SecretBox.fromKey(file.key)!.open(row.app_secret_sealed), 'sealed with the file key').to.equal('app-secret-1');

    const keyless = await settings('771002', freshDataDir());
    expect(keyless.code).to.equal(1);
    expect(keyless.stderr).to.match(/SETTINGS_ENCRYPTION_KEY is not set/);
    const untouched = await harness().orm.em.getKnex()('messaging_numbers').where({ phone_number_id: '771002' }).first();
    expect(untouched).to.include({ assistant_id: null, webhook_verify_token_hash: null, app_secret_sealed: null, cloud_api_token_sealed: null });
  });

  it('validates before writing: an agent of another account or none is refused naming the field, and no number is made', async () => {
    const [a, b] = [await newAccount(), await newAccount()];
    const theirs = (await newAgent(b)).id;
    for (const assistant of [theirs, '00000000-0000-4000-8000-000000000000']) {
      const refused = await adminWith(
        {},
        'connect-number',
        '--account',
        String(a.account.id),
        '--phone',
        '+14155550111',
        '--phone-number-id',
        '772001',
        '--assistant',
        assistant,
      );
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.match(/assistantId: account \d+ has no agent/);
    }
    expect(await harness().orm.em.getKnex()('messaging_numbers').where({ account_id: a.account.id }).count('* as n').first()).to.deep.equal({
      n: '0',
    });
  });

  it('remove-number and remove-social refuse while an agent answers through them, naming it; --force detaches', async () => {
    const a = await newAccount();
    const account = String(a.account.id);
    const agent = await newAgent(a, 'Front desk');
    json(
      await adminWith(
        {},
        'connect-number',
        '--account',
        account,
        '--phone',
        '+14155550121',
        '--phone-number-id',
        '773001',
        '--assistant',
        agent.id,
        '--json',
      ),
    );
    json(await adminWith({}, 'connect-number', '--account', account, '--phone', '+14155550122', '--phone-number-id', '773002', '--json'));
    const social = json(await adminWith({}, 'add-social', '--account', account, '--platform', 'facebook', '--name', 'Shop', '--json')).socialAccount;

    const refused = await adminWith({}, 'remove-number', '--account', account, '--phone-number-id', '773001');
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.include(`agent "Front desk" (${agent.id}) answers through it`);
    expect(json(await adminWith({}, 'remove-number', '--account', account, '--phone-number-id', '773002', '--json')).detachedFrom).to.equal(null);
    const forced = json(await adminWith({}, 'remove-number', '--account', account, '--phone-number-id', '773001', '--force', '--json'));
    expect(forced.detachedFrom).to.deep.equal({ agentId: agent.id, name: 'Front desk' });
    expect((await adminWith({}, 'remove-number', '--account', account, '--phone-number-id', '773001')).code, 'gone').to.equal(1);
    const other = await newAccount();
    expect(
      (await adminWith({}, 'remove-social', '--account', String(other.account.id), '--social-account', String(social.id))).code,
      "another account's",
    ).to.equal(1);
    expect(json(await adminWith({}, 'remove-social', '--account', account, '--social-account', String(social.id), '--json')).removed.id).to.equal(
      social.id,
    );
    const channels = await harness().orm.em.getKnex()('social_accounts').where({ id: social.id });
    expect(channels).to.have.length(0);
  });

  describe('rotate-settings-key (on a database of its own: it re-seals every secret there)', () => {
    let databaseUrl: string;
    let close: () => Promise<void>;
    let knex: Knex;
    before(async () => {
      const db = await migratedDatabase();
      databaseUrl = db.databaseUrl;
      knex = db.orm.em.getKnex();
      close = () => db.orm.close();
    });
    after(async () => {
      await close();
      await dropDatabase(databaseUrl);
    });

    it('finds every sealed column from the entities', () => {
      expect(sealedColumns(harness().orm.em.fork()).map((c) => `${c.table}.${c.column}`)).to.deep.equal([
        'agents.identity_secret_sealed',
        'messaging_numbers.app_secret_sealed',
        'messaging_numbers.cloud_api_token_sealed',
        'social_accounts.access_token_sealed',
        'social_accounts.app_secret_sealed',
      ]);
    });

    it('re-seals them all under a new key and replaces the key file only once committed; a foreign value stops it, changing nothing', async () => {
      const dir = freshDataDir();
      const old = ensureSettingsKeyFile(dir);
      const env = { ...secretsOf(dir), DATABASE_URL: databaseUrl };
      const account = String(json(await adminWith(env, 'bootstrap', '--account', 'Rotation', '--email', 'rotate@example.test', '--json')).account.id);
      json(await adminWith(env, 'connect-number', '--account', account, '--phone', '+14155550131', '--phone-number-id', '774001', '--json'));
      json(await receive(env, account, 'messaging', '774001', 'number-secret', 'number-token'));
      const social = json(
        await adminWith(env, 'add-social', '--account', account, '--platform', 'facebook', '--name', 'Page', '--external-id', '774100', '--json'),
      );
      expect(social.socialAccount.externalId).to.equal('774100');
      json(await receive(env, account, 'facebook', '774100', 'page-secret', 'page-token'));

      const rotated = json(await adminWith(env, 'rotate-settings-key', '--json'));
      expect(rotated.resealed.map((c: { count: number }) => c.count)).to.deep.equal([0, 1, 1, 1, 1]);
      const fresh = readFileSync(old.path, 'utf8').trim();
      expect(fresh).to.not.equal(old.key);
      expect(readFileSync(`${old.path}.previous`, 'utf8').trim()).to.equal(old.key);
      expect(statSync(old.path).mode & 0o777).to.equal(0o600);
      const [newBox, oldBox] = [SecretBox.fromKey(fresh)!, SecretBox.fromKey(old.key)!];
      const number = await knex('messaging_numbers').where({ phone_number_id: '774001' }).first();
      const page = await knex('social_accounts').where({ external_id: '774100' }).first();
      expect(
        [number.app_secret_sealed, number.cloud_api_token_sealed, page.app_secret_sealed, page.access_token_sealed].map((s) => newBox.open(s)),
      ).to.deep.equal(['number-secret', 'number-token', 'page-secret', 'page-token']);
      expect(oldBox.open(number.app_secret_sealed)).to.equal(null);

      // A value sealed under a key nobody has: the rotation is refused and nothing moves, the key file included.
      await knex('social_accounts')
        .where({ id: page.id })
        .update({ access_token_sealed: SecretBox.fromKey('b'.repeat(64))!.seal('lost') });
      const before = await knex('messaging_numbers').where({ id: number.id }).first();
      const refused = await adminWith(env, 'rotate-settings-key');
      expect(refused.code).to.equal(1);
      expect(refused.stderr).to.include(`social_accounts ${page.id}: access_token_sealed was not sealed with the current key; nothing was changed`);
      expect(await knex('messaging_numbers').where({ id: number.id }).first()).to.deep.equal(before);
      expect(readFileSync(old.path, 'utf8').trim()).to.equal(fresh);
      expect(existsSync(`${old.path}.new`)).to.equal(false);

      // From the environment: the new key is printed once, for the operator to set.
      await knex('social_accounts')
        .where({ id: page.id })
        .update({ access_token_sealed: newBox.seal('page-token') });
      const viaEnv = json(await adminWith({ DATABASE_URL: databaseUrl, SETTINGS_ENCRYPTION_KEY: fresh }, 'rotate-settings-key', '--json'));
      expect(SecretBox.fromKey(viaEnv.newKey)!.open((await knex('social_accounts').where({ id: page.id }).first()).access_token_sealed)).to.equal(
        'page-token',
      );
    });
  });
});
