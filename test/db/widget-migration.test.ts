import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { dropDatabase, ensureDatabase } from '../../db/database.js';
import { initORM } from '../../db/orm.js';
import { harness } from '../setup/harness.js';

describe('the livechat widget migration', function () {
  this.timeout(60_000);

  it('gives agents made before it a session key of their own, an unset identity secret, and the new theme and livechat fields', async () => {
    const url = new URL(harness().databaseUrl);
    url.pathname = `/agentry_test_widget_${randomBytes(3).toString('hex')}`;
    await ensureDatabase(url.toString());
    const orm = await initORM({ databaseUrl: url.toString() });
    try {
      await orm.getMigrator().up({ to: 'Migration20261125170118_idempotency_keys' });
      const knex = orm.em.getKnex();
      const account = (await knex.raw(`insert into accounts (name, namespace, created_at, updated_at) values ('A', 'a', now(), now()) returning id`))
        .rows[0].id;
      for (const id of ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222']) {
        await knex.raw(
          `insert into agents (id, account_id, name, is_offline, widget_secret_hash, hmac_secret_hash, created_at, updated_at)
           values (?, ?, 'Old', false, 'hash', 'hash', now(), now())`,
          [id, account],
        );
        await knex.raw(
          `insert into agent_configs (agent_id, kind, values, updated_at)
           values (?, 'THEME', '{"title": "T"}', now()), (?, 'CHANNEL:livechat', '{"enabled": true, "allowedOrigins": ["https://a.example"]}', now())`,
          [id, id],
        );
      }
      await orm.getMigrator().up();
      const agents = (await knex.raw('select widget_session_key, identity_secret_sealed from agents')).rows;
      expect(agents.map((a: { widget_session_key: string }) => a.widget_session_key)).to.satisfy((keys: string[]) =>
        keys.every((k) => /^[0-9a-f]{64}$/.test(k)),
      );
      expect(agents[0].widget_session_key).to.not.equal(agents[1].widget_session_key);
      expect(agents.map((a: { identity_secret_sealed: null }) => a.identity_secret_sealed)).to.deep.equal([null, null]);
      const configs = (await knex.raw(`select kind, values from agent_configs where agent_id = '11111111-1111-4111-8111-111111111111' order by kind`))
        .rows;
      expect(configs[0].values).to.deep.equal({ enabled: true, allowedOrigins: ['https://a.example'] });
      expect(configs[1].values).to.deep.equal({ title: 'T', offlineMessage: 'We are away right now. Please come back later.' });
    } finally {
      await orm.close();
      await dropDatabase(url.toString());
    }
  });
});
