/**
 * Benchmark of the operator inbox's list (issue 46). Run: `node --import tsx test/bench/inbox.bench.ts` (env
 * CONVERSATIONS, default 5000; MESSAGES per conversation, default 10; SAMPLES, default 50).
 *
 * A fresh database seeded with CONVERSATIONS conversations over four agents (one in ten HANDED_OFF, some claimed,
 * some with a viewer and a read mark) and their messages, the API in a process of its own. It prints p50/p95 over
 * HTTP of `GET /conversations` (first page of 50; a later page by cursor), `?waiting=true`, `?q=` with a word in one
 * message only, and, as the baseline of the same shape measured in the same sitting, one agent's own list
 * (`GET /agents/{id}/conversations`, one table and its index), with the ratio of the medians.
 */
import { loadavg, cpus } from 'node:os';
import { benchApi, percentile, runBench, startProcess, stopProcesses } from './bench-processes.js';
import { benchPlatform } from './bench-platform.js';

const CONVERSATIONS = Number(process.env.CONVERSATIONS ?? 5000);
const MESSAGES = Number(process.env.MESSAGES ?? 10);
const SAMPLES = Number(process.env.SAMPLES ?? 50);

async function main(): Promise<void> {
  const platform = await benchPlatform();
  const { orm, account } = platform;
  const [, port] = await startProcess('test/bench/api-process.ts', platform.processEnv, /port (\d+)/);
  const api = benchApi(port!, account.userKey);
  const agents: string[] = [];
  for (let i = 0; i < 4; i += 1) agents.push((await api('POST', '/agents', { name: `Agent ${i}` })).id);

  const knex = orm.em.getKnex();
  const seeded = performance.now();
  await knex.raw(
    `insert into conversations (id, account_id, agent_id, channel, status, turns, message_count, credits_used, handoffs, started_at, last_message_at,
       waiting_since, claimed_by_id, claimed_at, contact_name)
     select gen_random_uuid(), :account, (:agents::uuid[])[1 + i % 4], case when i % 3 = 0 then 'messaging' else 'livechat' end,
       case when i % 10 = 0 then 'HANDED_OFF' when i % 7 = 0 then 'ENDED' else 'ACTIVE' end, :messages / 2, :messages, 0,
       case when i % 10 = 0 then 1 else 0 end, now() - make_interval(mins => i), now() - make_interval(secs => i * 7),
       case when i % 10 = 0 then now() - make_interval(secs => i * 5) end,
       case when i % 20 = 0 then :user::int end, case when i % 20 = 0 then now() end, 'Visitor ' || i
     from generate_series(1, :n) as i`,
    { account: account.account.id, agents, messages: MESSAGES, user: account.user.id, n: CONVERSATIONS },
  );
  await knex.raw(
    `insert into conversation_messages (account_id, conversation_id, key, author, text, turn, created_at)
     select c.account_id, c.id, c.id || '/' || j, case when j % 2 = 0 then 'user' else 'agent' end,
       case when c.contact_name = 'Visitor 4242' and j = 3 then 'where is my parcel, needle 77' else 'Message ' || j || ' about opening hours and orders' end,
       j / 2, c.last_message_at - make_interval(secs => :messages - j)
     from conversations c cross join generate_series(1, :messages) as j where c.account_id = :account`,
    { account: account.account.id, messages: MESSAGES },
  );
  await knex.raw(
    `insert into conversation_viewers (conversation_id, user_id, account_id, present_until, typing, read_message_id, updated_at)
     select c.id, :user, c.account_id, now() + interval '1 hour', false,
       (select max(m.id) - 2 from conversation_messages m where m.conversation_id = c.id), now()
     from conversations c where c.account_id = :account and c.status = 'HANDED_OFF'`,
    { account: account.account.id, user: account.user.id },
  );
  // As autovacuum leaves a table in steady state (a GIN index's pending list merged).
  await knex.raw('vacuum analyze');
  const seedSeconds = (performance.now() - seeded) / 1000;

  const time = async (path: string, check: (body: any) => void) => {
    for (let i = 0; i < 5; i += 1) check(await api('GET', path));
    const samples: number[] = [];
    for (let i = 0; i < SAMPLES; i += 1) {
      const started = performance.now();
      check(await api('GET', path));
      samples.push(performance.now() - started);
    }
    return { p50: percentile(samples, 50), p95: percentile(samples, 95) };
  };
  const full = (body: any) => {
    if (body.agentry.length !== 50) throw new Error(`a page of ${body.agentry.length}`);
  };
  const fifth = await (async () => {
    let cursor: string | null = null;
    for (let i = 0; i < 4; i += 1) cursor = (await api('GET', `/conversations?limit=50${cursor ? `&cursor=${cursor}` : ''}`)).nextCursor;
    return cursor!;
  })();
  const rows = {
    'GET /conversations (first page of 50)': await time('/conversations?limit=50', full),
    'GET /conversations (fifth page, by cursor)': await time(`/conversations?limit=50&cursor=${fifth}`, full),
    'GET /conversations?waiting=true': await time('/conversations?waiting=true&limit=50', full),
    'GET /conversations?q=needle (one match)': await time('/conversations?q=needle&limit=50', (body) => {
      if (body.agentry.length !== 1) throw new Error(`q found ${body.agentry.length}`);
    }),
    'baseline: GET /agents/{id}/conversations': await time(`/agents/${agents[0]}/conversations?limit=50`, full),
  };
  const baseline = rows['baseline: GET /agents/{id}/conversations'].p50;
  console.log(
    `inbox list over ${CONVERSATIONS} conversations x ${MESSAGES} messages (seeded in ${seedSeconds.toFixed(1)} s), ${SAMPLES} samples each, ` +
      `${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}`,
  );
  for (const [name, { p50, p95 }] of Object.entries(rows)) {
    console.log(`  ${name.padEnd(46)} p50 ${p50.toFixed(1)} ms  p95 ${p95.toFixed(1)} ms  (${(p50 / baseline).toFixed(2)}x baseline)`);
  }
  stopProcesses();
  await platform.close();
}

runBench(main);
