import { expect } from 'chai';
import { harness } from '../setup/harness.js';
import { runResult, waitUntil } from '../setup/runs.js';
import { call, newAccount } from '../setup/http.js';

const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

const sql = (text: string, values: (string | number | boolean)[] = []) => harness().orm.em.fork().getKnex().raw(text, values);

describe('workflow analytics', function () {
  this.timeout(60_000);

  /** A draft workflow whose entry node runs `body` (a node creation body), optionally after a WEBHOOK. */
  async function workflow(key: string, name: string) {
    const id = (await call('POST', '/workflows', { key, body: { name } })).body.id as number;
    const entry = (
      await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } } })
    ).body.nodes.at(-1).nodeId;
    const broken = (await call('POST', `/workflows/${id}/nodes`, { key, body: { type: 'DATA_TRANSFORMER', data: { prompt: 'x' } } })).body.nodes.at(
      -1,
    ).nodeId;
    const run = async (entryNodeId: string) => {
      const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { entryNodeId } });
      expect(started.status, started.text).to.equal(202);
      return runResult(started.body.id);
    };
    return { id, succeed: () => run(entry), fail: () => run(broken) };
  }

  it('counts the runs of each day and sums them up, over the last 30 days by default', async () => {
    const a = await newAccount();
    const wf = await workflow(a.userKey, 'Counted');
    // The day the runs are made (a test running across midnight UTC reads them under yesterday).
    const day = today();
    await wf.succeed();
    await wf.succeed();
    await wf.fail();

    const res = await call('GET', `/workflows/${wf.id}/analytics`, { key: a.generalKey });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.runsByDate).to.have.length(30);
    expect(res.body).to.include({ startDate: daysAgo(29), endDate: today() });
    expect(res.body.runsByDate[0].date).to.equal(daysAgo(29));
    expect(res.body.runsByDate.find((d: { date: string }) => d.date === day)).to.deep.equal({
      date: day,
      totalRuns: 3,
      completedRuns: 2,
      failedRuns: 1,
      pendingRuns: 0,
      cancelledRuns: 0,
      totalCredits: 0,
    });
    expect(res.body.runsByDate.filter((d: { date: string }) => d.date !== day).every((d: any) => d.totalRuns === 0)).to.equal(true);
    expect(res.body.summary).to.deep.equal({ totalRuns: 3, totalCredits: 0, averageCreditsPerRun: 0, nonExecutedRuns: 0 });
    // Nullable dates mean the default range.
    expect((await call('GET', `/workflows/${wf.id}/analytics?startDate=&endDate=null`, { key: a.userKey })).body).to.deep.equal(res.body);
  });

  it('groups ledger runs by their UTC start day within the asked range, with credits and non-executed runs', async () => {
    const a = await newAccount();
    const wf = await workflow(a.userKey, 'Seeded');
    const insert = (id: string, status: string, startedAt: string, extra: { credits?: number; loop?: boolean; noCredits?: boolean } = {}) =>
      sql(
        `insert into workflow_runs (id, account_id, workflow_id, trigger_type, status, ai_credits, prevented_loop, insufficient_credits, started_at)
         values (?, ?, ?, 'MANUAL', ?, ?, ?, ?, ?)`,
        [`automation:${wf.id}:seed-${id}`, a.account.id, wf.id, status, extra.credits ?? 0, !!extra.loop, !!extra.noCredits, startedAt],
      );
    await insert('1', 'successful', '2025-03-01T00:00:00Z', { credits: 2.5 });
    await insert('2', 'running', '2025-03-01T12:00:00Z', { credits: 1 });
    await insert('3', 'failed', '2025-03-02T23:59:59.999Z', { loop: true });
    await insert('4', 'cancelled', '2025-03-03T00:00:00Z');
    await insert('5', 'successful', '2025-02-28T23:59:59Z', { credits: 100 });
    await insert('6', 'failed', '2025-03-04T00:00:00Z', { credits: 100 });

    const res = await call('GET', `/workflows/${wf.id}/analytics?startDate=2025-03-01&endDate=2025-03-03`, { key: a.userKey });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.runsByDate).to.deep.equal([
      { date: '2025-03-01', totalRuns: 2, completedRuns: 1, failedRuns: 0, pendingRuns: 1, cancelledRuns: 0, totalCredits: 3.5 },
      { date: '2025-03-02', totalRuns: 1, completedRuns: 0, failedRuns: 1, pendingRuns: 0, cancelledRuns: 0, totalCredits: 0 },
      { date: '2025-03-03', totalRuns: 1, completedRuns: 0, failedRuns: 0, pendingRuns: 0, cancelledRuns: 1, totalCredits: 0 },
    ]);
    expect(res.body.summary).to.deep.equal({ totalRuns: 4, totalCredits: 3.5, averageCreditsPerRun: 0.875, nonExecutedRuns: 1 });
    // A date-time counts by its UTC day; a range of one day.
    const one = await call('GET', `/workflows/${wf.id}/analytics?startDate=2025-03-02T10:00:00Z&endDate=2025-03-02`, { key: a.userKey });
    expect(one.body.runsByDate.map((d: any) => [d.date, d.totalRuns])).to.deep.equal([['2025-03-02', 1]]);
    // Only startDate: up to today.
    const since = await call('GET', `/workflows/${wf.id}/analytics?startDate=${daysAgo(2)}`, { key: a.userKey });
    expect(since.body.runsByDate.map((d: any) => d.date)).to.deep.equal([daysAgo(2), daysAgo(1), today()]);
  });

  it('counts a run stopped for lack of credits as not executed, and lists it so', async () => {
    const a = await newAccount();
    const wf = await workflow(a.userKey, 'Broke');
    await sql('update accounts set credit_balance = 0 where id = ?', [a.account.id]);
    const result = await wf.succeed();
    expect(result).to.include({ successful: false, insufficientCredits: true });

    const logs = await waitUntil(
      () => call('GET', `/workflows/${wf.id}/logs`, { key: a.userKey }),
      (res) => res.body.agentry?.[0]?.status === 'failed',
      'the run listed as ended',
    );
    expect(logs.body.agentry[0]).to.include({ successful: false, insufficient_credits: true, prevented_loop: false, operations: 0 });
    expect(logs.body.agentry[0].error).to.match(/Insufficient credits/);
    const detail = await call('GET', `/workflows/${wf.id}/logs/${logs.body.agentry[0].id}`, { key: a.userKey });
    expect(detail.body.node_results).to.deep.equal([]);

    const res = await call('GET', `/workflows/${wf.id}/analytics?startDate=${today()}&endDate=${today()}`, { key: a.userKey });
    expect(res.body.runsByDate).to.deep.equal([
      { date: today(), totalRuns: 1, completedRuns: 0, failedRuns: 1, pendingRuns: 0, cancelledRuns: 0, totalCredits: 0 },
    ]);
    expect(res.body.summary.nonExecutedRuns).to.equal(1);
  });

  it('answers 404 with a message for a workflow it does not know, and 400 naming a bad date', async () => {
    const a = await newAccount();
    const wf = await workflow(a.userKey, 'Mine');
    for (const path of ['/workflows/999999/analytics', `/workflows/${wf.id}/analytics`]) {
      const key = path.includes('999999') ? a.userKey : (await newAccount()).userKey;
      const res = await call('GET', path, { key });
      expect(res.status, path).to.equal(404);
      expect(res.body.message).to.be.a('string').and.not.equal('');
    }
    const cases: [string, string][] = [
      ['startDate=yesterday', 'startDate'],
      ['endDate=2025-02-30', 'endDate'],
      ['startDate=2025-03-02&endDate=2025-03-01', 'endDate'],
      ['startDate=2020-01-01&endDate=2025-01-01', 'startDate'],
    ];
    for (const [query, field] of cases) {
      const res = await call('GET', `/workflows/${wf.id}/analytics?${query}`, { key: a.userKey });
      expect(res.status, query).to.equal(400);
      expect(res.body.code).to.equal('bad_request');
      expect(res.body.details.issues[0].path, query).to.equal(`query.${field}`);
      expect(res.body.message, query).to.contain(field);
    }
    expect((await call('GET', `/workflows/${wf.id}/analytics?from=2025-01-01`, { key: a.userKey })).status).to.equal(400);
  });
});
