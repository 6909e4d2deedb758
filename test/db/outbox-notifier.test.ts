import { expect } from 'chai';
import type { EntityManager } from '@mikro-orm/postgresql';
import { randomUUID } from 'node:crypto';
import { appendMessage } from '../../db/agents/conversations.service.js';
import { Account } from '../../db/accounts/account.entity.js';
import { Agent } from '../../db/agents/agent.entity.js';
import { Conversation } from '../../db/agents/conversation.entity.js';
import { OutboxEvent } from '../../db/automations/outbox-event.entity.js';
import { initORM, type Orm } from '../../db/orm.js';
import { OutboxNotifier } from '../../db/automations/outbox-notifier.js';
import { sqlOf } from '../../db/tables/table-lookups.js';
import { harness } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';

describe('outbox notifier', () => {
  /** Runs `work` with a notifier on an ORM of its own (nothing else sends statements through it meanwhile) whose pokes are counted. */
  async function withNotifier(work: (orm: Orm, notifier: OutboxNotifier, pokes: () => number) => Promise<void>): Promise<void> {
    const orm = await initORM({ databaseUrl: harness().databaseUrl });
    try {
      const notifier = new OutboxNotifier(orm.em.getKnex());
      let pokes = 0;
      notifier.poke = () => void (pokes += 1);
      await work(orm, notifier, () => pokes);
    } finally {
      await orm.close();
    }
  }

  it('wakes the dispatchers only after statements that wrote outbox events, raw or flushed, in transactions too', () =>
    withNotifier(async (orm, notifier, pokes) => {
      const { account } = await newAccount();
      // Each write is rolled back: the harness's dispatcher never sees these events.
      const rolledBack = (work: (tx: EntityManager) => Promise<unknown>) =>
        orm.em
          .fork()
          .transactional(async (tx) => {
            await work(tx);
            throw new Error('roll back');
          })
          .catch((error: Error) => {
            if (error.message !== 'roll back') throw error;
          });
      const afterwards = async (work: () => Promise<unknown>) => {
        const mark = notifier.mark();
        await work();
        notifier.pokeIfWritten(mark);
        return pokes();
      };

      expect(await afterwards(() => orm.em.getKnex().raw('select count(*) from outbox_events')), 'a read').to.equal(0);
      expect(
        await afterwards(() => rolledBack((tx) => sqlOf(tx).raw('update outbox_events set attempts = attempts where false'))),
        'an update',
      ).to.equal(0);
      const raw = `insert into outbox_events (account_id, type, payload, created_at) values (?, 'NOTHING', '{}'::json, now())`;
      expect(await afterwards(() => rolledBack((tx) => sqlOf(tx).raw(raw, [account.id]))), 'a raw insert').to.equal(1);
      const flushed = async (tx: EntityManager) => {
        tx.create(OutboxEvent, { account: tx.getReference(Account, account.id), type: 'NOTHING', payload: {} });
        await tx.flush();
      };
      expect(await afterwards(() => rolledBack(flushed)), 'an entity flush').to.equal(2);
      const nested = `with made as (select ?::int as account_id)
        insert into outbox_events (account_id, type, payload, created_at) select account_id, 'NOTHING', '{}'::json, now() from made`;
      expect(await afterwards(() => rolledBack((tx) => sqlOf(tx).raw(nested, [account.id]))), 'an insert after a with').to.equal(3);
      expect(await afterwards(async () => {}), 'nothing since').to.equal(3);
    }));

  it("wakes them after an agent's message only when it is to be delivered on a messaging network", () =>
    withNotifier(async (orm, notifier, pokes) => {
      const { account, userKey } = await newAccount();
      const agent = await call('POST', '/agents', { key: userKey, body: { name: 'Notified' } });
      expect(agent.status, agent.text).to.equal(201);
      const conversation = async (networkUserId: string | null) => {
        const em = orm.em.fork();
        const row = em.create(Conversation, {
          id: randomUUID(),
          account: em.getReference(Account, account.id),
          agent: em.getReference(Agent, agent.body.id),
          channel: networkUserId ? 'whatsapp' : 'livechat',
          networkUserId,
        });
        await em.flush();
        return row.id;
      };
      const say = async (conversationId: string) => {
        const mark = notifier.mark();
        const message = await appendMessage(orm.em.fork(), {
          accountId: account.id,
          conversationId,
          key: `notified-${randomUUID()}`,
          author: 'agent',
          text: 'Hello',
          turn: 1,
          holdDelivery: true,
        });
        notifier.pokeIfWritten(mark);
        return message;
      };

      const livechat = await say(await conversation(null));
      expect(livechat.delivery).to.equal(undefined);
      expect(pokes(), 'a livechat message').to.equal(0);
      const onNetwork = await conversation('15550001');
      const network = await say(onNetwork);
      expect(network.delivery?.status).to.equal('pending');
      expect(pokes(), 'a message to deliver').to.equal(1);
      // The held delivery is not for the harness's dispatcher to try.
      await orm.em.getKnex().raw(`delete from outbox_events where payload->>'conversationId' = ?`, [onNetwork]);
    }));
});
