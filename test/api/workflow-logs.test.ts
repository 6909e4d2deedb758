import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { runResult, waitUntil } from '../setup/runs.js';
import { call, newAccount } from '../setup/http.js';

/**
 * A local HTTP service for API nodes: /ok answers JSON, /missing 404, /slow never answers (until the server closes);
 * a /slow call the caller gives up on is noted as `aborted /slow`.
 */
function startService(): Promise<{ server: Server; origin: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === '/slow') {
      res.on('close', () => hits.push(`aborted ${req.url}`));
      return;
    }
    res.statusCode = req.url === '/ok' ? 200 : 404;
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/ok' ? '{"answer":42}' : '{"error":"no such thing"}');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits })),
  );
}

const today = () => new Date().toISOString().slice(0, 10);
const dayOffset = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe('workflow run logs', function () {
  this.timeout(90_000);
  let service: Awaited<ReturnType<typeof startService>>;
  before(async () => (service = await startService()));
  after(() => service.server.close().closeAllConnections());

  /** A draft workflow WEBHOOK → API `<origin>/{trigger_payload}`; answers its id and node ids. */
  async function apiWorkflow(key: string, name: string) {
    const id = (await call('POST', '/workflows', { key, body: { name } })).body.id as number;
    const add = async (body: unknown) => (await call('POST', `/workflows/${id}/nodes`, { key, body })).body.nodes.at(-1).nodeId as string;
    const entry = await add({ type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } });
    const api = await add({ type: 'API', data: { url: `${service.origin}/{trigger_payload}`, method: 'GET' } });
    await call('POST', `/workflows/${id}/edges`, { key, body: { source: entry, handle: 'default', targetEdge: api } });
    return { id, entry, api };
  }

  async function run(key: string, id: number, payload: string): Promise<{ id: string; runId: string }> {
    const started = await call('POST', `/workflows/${id}/runs?snapshot=draft`, { key, body: { payload } });
    expect(started.status, started.text).to.equal(202);
    return started.body;
  }

  const list = (key: string, id: number, query = '') => call('GET', `/workflows/${id}/logs${query}`, { key });
  const ids = async (key: string, id: number, query: string) => (await list(key, id, query)).body.agentry.map((l: any) => l.id);
  const ended = (res: { body: { agentry?: { status: string }[] } }, count: number) =>
    res.body.agentry?.length === count && res.body.agentry.every((log) => log.status !== 'running');

  it('lists successful and failed runs with their outcome, filters them, and details each node', async () => {
    const { userKey: key } = await newAccount();
    const wf = await apiWorkflow(key, 'Lookup');
    const ok = await run(key, wf.id, 'ok');
    await runResult(ok.id);
    const failed = await run(key, wf.id, 'missing');
    await runResult(failed.id);

    const all = await waitUntil(
      () => list(key, wf.id),
      (res) => ended(res, 2),
      'both runs listed as ended',
    );
    expect([all.status, all.body.nextCursor]).to.deep.equal([200, null]);
    const [newest, oldest] = all.body.agentry;
    expect(newest).to.include({ id: failed.id, status: 'failed', successful: false, operations: 2, ai_credits: 0, trigger_type: 'MANUAL' });
    expect(newest).to.include({ insufficient_credits: false, prevented_loop: false, temporal_workflow_id: failed.id, temporal_run_id: failed.runId });
    expect(newest.temporal_ui_url).to.equal(
      `http://temporal-ui.test:8233/namespaces/default/workflows/${encodeURIComponent(failed.id)}/${failed.runId}/history`,
    );
    expect(newest.error).to.match(/answered 404/);
    expect(oldest).to.include({ id: ok.id, status: 'successful', successful: true, operations: 2, error: null });
    for (const log of [newest, oldest]) {
      expect(Date.parse(log.completed_at)).to.be.at.least(Date.parse(log.started_at));
      expect(log.duration).to.equal(Date.parse(log.completed_at) - Date.parse(log.started_at));
    }

    const detail = await call('GET', `/workflows/${wf.id}/logs/${encodeURIComponent(failed.id)}`, { key });
    expect(detail.body, detail.text).to.include({ id: failed.id, status: 'failed', successful: false });
    const results = detail.body.node_results;
    expect(results.map((r: any) => [r.node_id, r.type, r.success])).to.deep.equal([
      [wf.entry, 'WEBHOOK', true],
      [wf.api, 'API', false],
    ]);
    expect(results[1].error).to.match(/answered 404/);
    expect(results[0]).to.include({ error: null, ai_credits: 0 }).and.have.property('alias').that.is.a('string');
    expect(Date.parse(results[1].created_at)).to.be.at.least(Date.parse(results[0].created_at));
    const okDetail = await call('GET', `/workflows/${wf.id}/logs/${ok.id}`, { key });
    expect(okDetail.body.node_results[1]).to.deep.include({ node_id: wf.api, success: true, output: { answer: 42 } });

    // Status filter: case-insensitive, with aliases.
    expect(await ids(key, wf.id, '?status=FAILED')).to.deep.equal([failed.id]);
    expect(await ids(key, wf.id, '?status=success')).to.deep.equal([ok.id]);
    expect(await ids(key, wf.id, '?status=error')).to.deep.equal([failed.id]);
    expect(await ids(key, wf.id, '?status=running')).to.deep.equal([]);

    // Date filters: a plain end date covers the whole day.
    expect(await ids(key, wf.id, `?start_date=${today()}&end_date=${today()}`)).to.have.length(2);
    expect(await ids(key, wf.id, `?start_date=${dayOffset(1)}`)).to.deep.equal([]);
    expect(await ids(key, wf.id, `?end_date=${dayOffset(-1)}`)).to.deep.equal([]);
    expect(await ids(key, wf.id, `?start_date=${oldest.started_at}&end_date=${newest.started_at}`)).to.have.length(2);
    expect(await ids(key, wf.id, `?start_date=${new Date(Date.parse(oldest.started_at) + 1).toISOString()}`)).to.deep.equal([failed.id]);
    const badQueries = [
      ['?status=bogus', 'status'],
      ['?start_date=yesterday', 'start_date'],
      ['?end_date=2025-02-30', 'end_date'],
      [`?start_date=${today()}&end_date=${dayOffset(-2)}`, 'end_date'],
    ];
    for (const [query, field] of badQueries) {
      const bad = await list(key, wf.id, query);
      expect([bad.status, bad.body.details?.issues[0].path], query).to.deep.equal([400, `query.${field}`]);
      expect(bad.body.message).to.contain(field);
    }
  });

  it('pages through runs with limit and cursor, without repeats', async () => {
    const { userKey: key } = await newAccount();
    const wf = await apiWorkflow(key, 'Paged');
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) ids.push((await run(key, wf.id, 'ok')).id);
    await Promise.all(ids.map((id) => runResult(id)));
    await waitUntil(
      () => list(key, wf.id),
      (res) => ended(res, 5),
      'five ended runs',
    );

    const [seen, sizes]: [string[], number[]] = [[], []];
    let cursor: string | null = null;
    do {
      const page: any = await list(key, wf.id, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status, page.text).to.equal(200);
      sizes.push(page.body.agentry.length);
      seen.push(...page.body.agentry.map((l: any) => l.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(sizes).to.deep.equal([2, 2, 1]);
    expect([...seen].sort()).to.deep.equal([...ids].sort());

    const exact = await list(key, wf.id, '?limit=5');
    expect(
      exact.body.agentry.map((l: any) => l.id),
      'pages follow the order of the whole list',
    ).to.deep.equal(seen);
    expect(exact.body.nextCursor, 'no cursor to an empty page').to.equal(null);
    const first = (await list(key, wf.id, '?limit=2')).body.nextCursor;
    expect((await list(key, wf.id, `?limit=3&cursor=${first}`)).body.agentry, 'the limit may change between pages').to.have.length(3);
    for (const query of ['?cursor=not-a-cursor', '?cursor=AAAA', `?status=successful&cursor=${first}`]) {
      const bad = await list(key, wf.id, query);
      expect([bad.status, bad.body.details?.issues[0].path], query).to.deep.equal([400, 'query.cursor']);
    }
    expect((await list(key, wf.id, '?limit=501')).status).to.equal(400);
  });

  it('keeps logs to their account and workflow, and to USER keys', async () => {
    const a = await newAccount();
    const wf = await apiWorkflow(a.userKey, 'Private');
    const mine = await run(a.userKey, wf.id, 'ok');
    await runResult(mine.id);
    await waitUntil(
      () => list(a.userKey, wf.id),
      (res) => ended(res, 1),
      'the run listed',
    );

    const other = await newAccount();
    const theirs = await apiWorkflow(other.userKey, 'Theirs');
    const sibling = await apiWorkflow(a.userKey, 'Sibling');
    expect((await list(other.userKey, theirs.id)).body).to.deep.equal({ agentry: [], nextCursor: null });
    const hidden: [string, string, string][] = [
      ['GET', `/workflows/${wf.id}/logs/${mine.id}`, other.userKey],
      ['GET', `/workflows/${wf.id}/logs`, other.userKey],
      ['POST', `/workflows/${wf.id}/logs/${mine.id}/cancel`, other.userKey],
      ['GET', `/workflows/${theirs.id}/logs/${mine.id}`, other.userKey], // a run under a workflow it is not of
      ['GET', `/workflows/${sibling.id}/logs/${mine.id}`, a.userKey],
      ['GET', `/workflows/${wf.id}/logs/automation:${wf.id}:manual-nope`, a.userKey], // never a run
    ];
    for (const [method, path, key] of hidden) {
      const res = await call(method, path, { key });
      expect([res.status, res.body.code], `${method} ${path}`).to.deep.equal([404, 'not_found']);
    }
    for (const [method, path] of [
      ['GET', `/workflows/${wf.id}/logs`],
      ['GET', `/workflows/${wf.id}/logs/${mine.id}`],
      ['POST', `/workflows/${wf.id}/logs/${mine.id}/cancel`],
    ]) {
      const res = await call(method, path, { key: a.generalKey });
      expect([res.status, res.body.code], `${method} ${path}`).to.deep.equal([403, 'forbidden']);
    }
  });

  it('shows a running run as it goes, cancels it, and refuses to cancel it twice', async () => {
    const { userKey: key } = await newAccount();
    const wf = await apiWorkflow(key, 'Slow');
    const started = await run(key, wf.id, 'slow');
    const path = `/workflows/${wf.id}/logs/${started.id}`;
    await waitUntil(
      async () => service.hits.filter((h) => h === 'GET /slow').length,
      (n) => n > 0,
      'the slow call',
    );

    const running = await waitUntil(
      () => list(key, wf.id, '?status=running'),
      (res) => res.body.agentry?.length === 1,
      'the running run listed',
    );
    expect(running.body.agentry[0]).to.include({ id: started.id, status: 'running', successful: false, completed_at: null });
    expect(running.body.agentry[0].duration).to.be.a('number').and.at.least(0);
    const live = await call('GET', path, { key });
    expect(live.body.node_results.map((r: any) => [r.type, r.success])).to.deep.equal([['WEBHOOK', true]]);

    const cancelled = await call('POST', `${path}/cancel`, { key });
    expect([cancelled.status, cancelled.body.id]).to.deep.equal([202, started.id]);
    const detail = await waitUntil(
      () => call('GET', path, { key }),
      (res) => res.body.status === 'cancelled',
      'the run cancelled',
    );
    expect(detail.body).to.include({ successful: false, error: 'Cancelled' }).and.have.property('completed_at').that.is.a('string');
    expect(detail.body.node_results.map((r: any) => [r.type, r.success, r.error])).to.deep.equal([
      ['WEBHOOK', true, null],
      ['API', false, 'Cancelled'],
    ]);
    // The cancellation reaches the node's activity, which aborts its HTTP call instead of waiting it out.
    await waitUntil(
      async () => service.hits.filter((h) => h === 'aborted /slow').length,
      (n) => n > 0,
      'the slow call to be aborted',
    );

    const again = await call('POST', `${path}/cancel`, { key });
    expect([again.status, again.body.code]).to.deep.equal([409, 'conflict']);
    const listed = await waitUntil(
      () => list(key, wf.id, '?status=cancelled'),
      (res) => res.body.agentry?.length === 1,
      'the cancelled run listed',
    );
    expect(listed.body.agentry[0]).to.include({ id: started.id, successful: false, error: 'Cancelled' });
    const workflow = await waitUntil(
      () => call('GET', `/workflows/${wf.id}`, { key }),
      (res) => res.body.runsCount === 1,
      'the run counted',
    );
    expect(workflow.body.runsFailedCount).to.equal(0);
  });
});
