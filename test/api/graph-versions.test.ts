import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';
import { runResult } from '../setup/runs.js';
import { ok, refused, type Account } from './agents/agent-calls.helpers.js';
import { startConversation, talkingAgent } from './agents/conversation.helpers.js';

describe('versions of flows and workflows', function () {
  this.timeout(90_000);

  it('numbers every publish of a flow, diffs two versions, restores one as the next, and a turn runs and records it', async () => {
    const a = await newAccount();
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello v1' } }]);
    const flow = `${agent.base}/flows/${agent.defaultFlowId}`;
    await ok('PUT', `${flow}/nodes/say_ai_1`, a.generalKey, { type: 'SAY_AI', data: { message: 'Hello v2' } }, 200);
    await ok('POST', `${flow}/publish`, a.userKey, { message: 'Warmer greeting' });
    const added = await ok('POST', `${flow}/nodes`, a.generalKey, { type: 'SAY_AI', alias: 'follow_up', data: { message: 'Anything else?' } });
    const followUp = added.nodes.at(-1).nodeId as string;
    await ok('POST', `${flow}/edges`, a.generalKey, { source: 'say_ai_1', handle: 'default', targetEdge: followUp });
    await ok('POST', `${flow}/publish`, a.userKey, { message: 'Asks if there is more' });

    const versions = await ok('GET', `${flow}/versions`, a.generalKey);
    expect(versions.agentry.map((v: any) => [v.version, v.message, v.isLive])).to.deep.equal([
      [3, 'Asks if there is more', true],
      [2, 'Warmer greeting', false],
      [1, null, false],
    ]);
    expect(versions.agentry[0].publishedBy).to.deep.include({ userId: a.user.id, email: a.user.email });
    expect(versions.agentry[2].publishedBy.userId, 'published with the GENERAL key: no user').to.equal(null);
    const page = await ok('GET', `${flow}/versions?limit=2`, a.generalKey);
    expect(page.agentry).to.have.length(2);
    expect(page.nextCursor).to.be.a('string');

    const diff = await ok('GET', `${flow}/versions/diff?from=1&to=3`, a.generalKey);
    expect(diff.nodes.added.map((n: any) => n.nodeId)).to.deep.equal([followUp]);
    expect(diff.nodes.removed).to.deep.equal([]);
    expect(diff.nodes.changed).to.deep.equal([
      {
        nodeId: 'say_ai_1',
        type: 'SAY_AI',
        alias: 'say_ai',
        summary: 'changed SAY_AI say_ai_1 ("say_ai"): data.message "Hello v1" → "Hello v2"',
        changes: [{ path: '/data/message', old: 'Hello v1', new: 'Hello v2' }],
      },
    ]);
    expect(diff.edges).to.deep.equal({ added: [{ source: 'say_ai_1', handle: 'default', targetEdge: followUp }], removed: [], changed: [] });
    expect(diff.summary).to.deep.equal([
      `added SAY_AI ${followUp} ("follow_up")`,
      diff.nodes.changed[0].summary,
      `added edge say_ai_1 —default→ ${followUp}`,
    ]);
    expect((await ok('GET', `${flow}/versions/diff?from=3&to=3`, a.generalKey)).summary).to.deep.equal([]);
    await refused('GET', `${flow}/versions/diff?from=1&to=9`, a.generalKey, 404);
    await refused('GET', `${flow}/versions/diff?from=1`, a.generalKey, 400);
    await refused('GET', `${flow}/versions/9`, a.generalKey, 404);

    // Restore honours If-Match as the draft's edits do: a stale tag changes nothing.
    const stale = (await call('GET', `${flow}/graph`, { key: a.generalKey })).headers.get('etag')!;
    await ok('PUT', `${flow}/nodes/${followUp}`, a.generalKey, { type: 'SAY_AI', data: { message: 'Draft only' } }, 200);
    const refusedRestore = await call('POST', `${flow}/versions/1/restore`, { key: a.userKey, headers: { 'if-match': stale } });
    expect(refusedRestore.status, refusedRestore.text).to.equal(412);
    const current = (await call('GET', `${flow}/graph`, { key: a.generalKey })).headers.get('etag')!;
    const restored = await call('POST', `${flow}/versions/1/restore`, { key: a.userKey, headers: { 'if-match': current } });
    expect(restored.status, restored.text).to.equal(201);
    expect(restored.body).to.deep.include({ version: 4, message: 'Restored version 1', isLive: true });
    const [v1, v4] = await Promise.all([ok('GET', `${flow}/versions/1`, a.generalKey), ok('GET', `${flow}/versions/4`, a.generalKey)]);
    expect({ nodes: v4.nodes, edges: v4.edges }).to.deep.equal({ nodes: v1.nodes, edges: v1.edges });
    expect((await ok('GET', `${flow}/graph`, a.generalKey)).nodes, 'the draft is the restored graph').to.deep.equal(v1.nodes);

    const conversation = await startConversation(a, agent);
    expect(conversation.messages.map((m: any) => [m.text, m.flowVersion])).to.deep.equal([['Hello v1', 4]]);
    const transcript = await ok('GET', `${agent.base}/conversations/${conversation.id}`, a.userKey);
    expect(transcript.messages.map((m: any) => m.flowVersion)).to.deep.equal([4]);

    const other = await newAccount();
    await refused('GET', `${flow}/versions`, other.generalKey, 404);
    await refused('POST', `${flow}/versions/1/restore`, other.userKey, 404);
  });

  it('gives two publishes at once two consecutive versions', async () => {
    const a = await newAccount();
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hi' } }]);
    const flow = `${agent.base}/flows/${agent.defaultFlowId}`;
    const published = await Promise.all([1, 2, 3].map((n) => call('POST', `${flow}/publish`, { key: a.userKey, body: { message: `at once ${n}` } })));
    expect(published.map((r) => r.status)).to.deep.equal([201, 201, 201]);
    const versions = (await ok('GET', `${flow}/versions`, a.generalKey)).agentry;
    expect(versions.map((v: any) => v.version)).to.deep.equal([4, 3, 2, 1]);
    expect(
      versions
        .slice(0, 3)
        .map((v: any) => v.message)
        .sort(),
    ).to.deep.equal(['at once 1', 'at once 2', 'at once 3']);

    const workflowId = (await ok('POST', '/workflows', a.userKey, { name: 'Twice' })).id as number;
    await ok('POST', `/workflows/${workflowId}/nodes`, a.userKey, { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } });
    const both = await Promise.all([1, 2].map(() => call('POST', `/workflows/${workflowId}/publish`, { key: a.userKey })));
    expect(both.map((r) => r.status)).to.deep.equal([201, 201]);
    expect((await ok('GET', `/workflows/${workflowId}/versions`, a.generalKey)).agentry.map((v: any) => v.version)).to.deep.equal([2, 1]);
  });

  it("numbers a workflow's publishes (an ACTIVE workflow's edits too), and its run log shows the version a run executed", async () => {
    const a: Account = await newAccount();
    const id = (await ok('POST', '/workflows', a.userKey, { name: 'Versioned' })).id as number;
    await ok('POST', `/workflows/${id}/nodes`, a.userKey, { type: 'WEBHOOK', data: { url: 'https://hooks.example.test/in' } });
    await ok('POST', `/workflows/${id}/publish`, a.userKey, { message: 'first' });
    await ok('PUT', `/workflows/${id}`, a.userKey, { status: 'ACTIVE' }, 200); // the draft is live already: no new version
    await ok('POST', `/workflows/${id}/nodes`, a.userKey, { type: 'DATA_TRANSFORMER', data: { prompt: 'Shape it' } });
    const versions = (await ok('GET', `/workflows/${id}/versions`, a.generalKey)).agentry;
    expect(versions.map((v: any) => [v.version, v.message, v.nodeCount])).to.deep.equal([
      [2, null, 2],
      [1, 'first', 1],
    ]);
    const diff = await ok('GET', `/workflows/${id}/versions/diff?from=2&to=1`, a.generalKey);
    expect(diff.nodes.removed.map((n: any) => n.type)).to.deep.equal(['DATA_TRANSFORMER']);

    const started = await ok('POST', `/workflows/${id}/runs`, a.userKey, { payload: {} }, 202);
    await runResult(started.id);
    const log = await ok('GET', `/workflows/${id}/logs/${encodeURIComponent(started.id)}`, a.userKey);
    expect(log.version).to.equal(2);
    const draftRun = await ok('POST', `/workflows/${id}/runs?snapshot=draft`, a.userKey, { payload: {} }, 202);
    await runResult(draftRun.id);
    expect((await ok('GET', `/workflows/${id}/logs/${encodeURIComponent(draftRun.id)}`, a.userKey)).version).to.equal(null);
  });
});
