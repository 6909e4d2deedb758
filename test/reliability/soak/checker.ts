/**
 * The soak's checker: once the workload has stopped and the platform is quiet, it reads what happened through the
 * API (and the fake Send API's record) and compares it with what was accepted: every webhook call answered 202 ran
 * exactly once (one row carrying its call id), every accepted Meta message got exactly one reply, every acknowledged
 * row write is there once, every API turn answered 200 is in the transcript once with one reply, every accepted knowledge
 * document was indexed, every widget stream received each message of its transcript once, resumed or not.
 */
import { HOURS_REPLY } from '../../bench/bench-agent.js';
import { FakeMetaServer } from '../../setup/fake-meta-server.js';
import { quiet, undispatchedEvents } from '../../setup/quiet.js';
import type { SoakClient } from './client.js';
import type { Fault } from './faults.js';
import type { SoakPlatform } from './platform.js';
import { HOOK_TABLE, ROW_TABLE, type Workload } from './workload.js';

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** How many times each value occurs. */
function tally(values: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return counts;
}

async function pages(client: SoakClient, key: string, method: 'GET' | 'POST', path: string): Promise<any[]> {
  const items: any[] = [];
  let cursor: string | undefined;
  do {
    const res =
      method === 'POST'
        ? await client.send('check', 'POST', `/public/v1${path}`, { key, body: { limit: 500, ...(cursor ? { cursor } : {}) } })
        : await client.send('check', 'GET', `/public/v1${path}?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    items.push(...res.body.agentry);
    cursor = res.body.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** What the platform holds now, read through the API. */
async function observe(platform: SoakPlatform, client: SoakClient, workload: Workload) {
  const key = platform.account.userKey;
  const hookRows = (await pages(client, key, 'POST', `/tables/${HOOK_TABLE}/rows/list`)).map((r) => r.data.CallId as string);
  const rowKeys = (await pages(client, key, 'POST', `/tables/${ROW_TABLE}/rows/list`)).map((r) => r.data.Key as string);
  const documents = await pages(client, key, 'GET', `/knowledge-bases/${workload.knowledgeBase}/documents`);
  const transcripts: Record<string, { author: string; text: string }[]> = {};
  for (const id of workload.ledger.turns.keys()) {
    const res = await client.send('check', 'GET', `/public/v1${workload.agentBase}/conversations/${id}`, { key });
    transcripts[id] = res.body.messages;
  }
  const widget = await Promise.all(workload.ledger.widget.map(async (v) => ({ transcript: await v.transcript(), received: [...v.received] })));
  const replies = platform.meta.sent
    .filter((call) => FakeMetaServer.textOf(call) === HOURS_REPLY)
    .map((call) => ({ to: call.body.to as string, at: Math.round(performance.timeOrigin + call.at) }));
  return { hookRows, rowKeys, documents: documents.map((d) => ({ id: d.id as string, status: d.status as string })), transcripts, widget, replies };
}

/** How soon after a reply Meta took a crash explains its second send. */
const CRASH_WINDOW_MS = 10_000;

/** `faults`: what the fault loop did (a reply sent twice is told apart by whether a crash came right after it); `began`: when the run started. */
export async function check(platform: SoakPlatform, client: SoakClient, workload: Workload, faults: Fault[], began: number): Promise<Check[]> {
  const { ledger } = workload;
  const undispatched = undispatchedEvents(platform.account.account.id, platform.orm.em.getKnex());
  const pending = (seen: Awaited<ReturnType<typeof observe>>) =>
    seen.documents.filter((d) => d.status === 'PENDING' || d.status === 'INDEXING').length +
    seen.widget.filter((w) => w.transcript.at(-1) !== w.received.at(-1)).length;
  // Quiet: nothing waits in the outbox, no document is still being indexed, every stream has caught up, and what
  // the API answers has stayed the same for 5 s (so a run or reply that comes late still counts).
  let behind = 1;
  const read = async () => {
    const value = await observe(platform, client, workload);
    behind = pending(value);
    return value;
  };
  const seen = await quiet(read, {
    settleMs: 5_000,
    timeoutMs: 180_000,
    intervalMs: 1_000,
    busy: [undispatched, () => behind],
    what: 'the platform after the soak',
  });
  const checks: Check[] = [];
  const add = (name: string, ok: boolean, detail: string) => checks.push({ name, ok, detail });

  const hookRows = tally(seen.hookRows);
  const accepted = [...ledger.webhooks].filter(([, status]) => status === 202).map(([id]) => id);
  const lost = accepted.filter((id) => !hookRows.has(id));
  const twice = [...hookRows].filter(([, n]) => n > 1).map(([id]) => id);
  add(
    'webhook calls answered 202 ran exactly once',
    lost.length === 0 && twice.length === 0,
    `${accepted.length} accepted of ${ledger.webhooks.size}; ${lost.length} lost ${JSON.stringify(lost.slice(0, 3))}, ${twice.length} ran twice ${JSON.stringify(twice.slice(0, 3))}`,
  );

  const replies = tally(seen.replies.map((r) => r.to));
  const delivered = [...ledger.meta.values()].filter((m) => m.status === 200);
  const unanswered = delivered.filter((m) => !replies.has(m.person));
  // A reply Meta took whose record the sender never wrote (its worker killed, its database connection cut) is sent
  // again: the Send API takes no idempotency key (docs/agents.md, Replies). Such a second send is explained by a
  // crash within seconds after the first; any other is a reply sent twice.
  const crashes = faults.filter((f) => /SIGKILL (runs|turns)|pg_terminate_backend|PostgreSQL crashed/.test(f.what)).map((f) => f.at);
  const repeated = [...ledger.meta.values()]
    .filter((m) => (replies.get(m.person) ?? 0) > 1)
    .map((m) => {
      const [first, second] = seen.replies.filter((r) => r.to === m.person).map((r) => r.at);
      const crash = crashes.find((at) => at >= first! - 1_000 && at <= Math.min(second!, first! + CRASH_WINDOW_MS));
      return { person: m.person, first: first! - began, second: second! - began, crash: crash === undefined ? undefined : crash - began };
    });
  const unexplained = repeated.filter((r) => r.crash === undefined);
  const seconds = (ms: number) => `+${(ms / 1000).toFixed(1)} s`;
  add(
    'Meta messages got exactly one reply',
    unanswered.length === 0 && unexplained.length === 0,
    `${delivered.length} accepted of ${ledger.meta.size}; ${unanswered.length} without a reply, ${repeated.length} answered twice` +
      repeated
        .map(
          (r) =>
            ` [sent ${seconds(r.first)} and ${seconds(r.second)}, ${r.crash === undefined ? 'no crash between' : `crash at ${seconds(r.crash)}`}]`,
        )
        .join(''),
  );

  const rowKeys = tally(seen.rowKeys);
  const acknowledged = [...ledger.rows].filter(([, status]) => status === 201).map(([key]) => key);
  const missing = acknowledged.filter((key) => !rowKeys.has(key));
  const doubled = [...rowKeys].filter(([, n]) => n > 1).length;
  // Each write carries an Idempotency-Key that its retries repeat: a retry of a write whose answer was lost answers
  // the first answer again instead of writing the row twice.
  add(
    'acknowledged row writes are there, each once',
    missing.length === 0 && doubled === 0,
    `${acknowledged.length} acknowledged of ${ledger.rows.size}; ${missing.length} missing; ${doubled} written twice`,
  );

  const turnProblems: string[] = [];
  for (const [id, { accepted: ok, unanswered: lostTurns }] of ledger.turns) {
    const messages = seen.transcripts[id] ?? [];
    const users = messages.filter((m) => m.author === 'user').length;
    const agents = messages.filter((m) => m.author === 'agent').length;
    if (users < ok || users > ok + lostTurns || agents !== users + 1)
      turnProblems.push(`${id}: ${ok} accepted, ${users} user and ${agents} agent messages`);
  }
  const turnCount = [...ledger.turns.values()].reduce((sum, t) => sum + t.accepted, 0);
  add(
    'API turns answered 200 are in the transcript once, each with one reply',
    turnProblems.length === 0,
    `${turnCount} turns; ${turnProblems.join('; ') || 'all in order'}`,
  );

  const notIndexed = seen.documents.filter((d) => ledger.documents.has(d.id) && d.status !== 'INDEXED');
  const absent = [...ledger.documents].filter((id) => !seen.documents.some((d) => d.id === id));
  add(
    'accepted knowledge documents were indexed',
    notIndexed.length === 0 && absent.length === 0,
    `${ledger.documents.size} accepted; ${notIndexed.length} not INDEXED ${JSON.stringify(notIndexed.slice(0, 3))}, ${absent.length} absent`,
  );

  const streamProblems: string[] = [];
  let reconnects = 0;
  seen.widget.forEach(({ transcript, received }, i) => {
    const visitor = ledger.widget[i]!;
    reconnects += visitor.reconnects;
    const got = tally(received);
    const missed = transcript.filter((id) => !got.has(id)).length;
    const again = [...got.values()].filter((n) => n > 1).length;
    const extra = received.filter((id) => !transcript.includes(id)).length;
    if (missed || again || extra)
      streamProblems.push(
        `stream ${i + 1} (${visitor.reconnects} reconnections): ${missed} missed, ${again} repeated, ${extra} not in the transcript`,
      );
  });
  add(
    'widget streams that resumed missed nothing and repeated nothing',
    streamProblems.length === 0,
    `${seen.widget.length} streams, ${reconnects} reconnections, ${seen.widget.reduce((n, w) => n + w.transcript.length, 0)} messages; ${streamProblems.join('; ') || 'each message once'}`,
  );
  return checks;
}
