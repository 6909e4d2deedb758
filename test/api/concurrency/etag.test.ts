/** Optional optimistic concurrency: ETag on single-document GETs, If-Match on their writes (412), If-None-Match (304). */
import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';
import { newAgent, type Account } from '../agents/agent-calls.helpers.js';
import { allAtOnce } from './parallel-writes.helpers.js';

describe('ETag and If-Match', () => {
  let a: Account;
  let agent: { id: string; defaultFlowId: number };
  before(async () => {
    a = await newAccount();
    agent = await newAgent(a, 'Versions');
  });

  it('answers a theme GET with an ETag, accepts a PUT that names it, and refuses a stale one with 412 changing nothing', async () => {
    const path = `/agents/${agent.id}/theme`;
    const first = await call('GET', path, { key: a.userKey });
    const tag = first.headers.get('etag')!;
    expect(tag).to.match(/^"[A-Za-z0-9_-]+"$/);
    const put = await call('PUT', path, { key: a.userKey, body: { title: 'Mine' }, headers: { 'if-match': tag } });
    expect(put.status, put.text).to.equal(200);
    const next = put.headers.get('etag')!;
    expect(next).to.not.equal(tag);
    expect((await call('GET', path, { key: a.userKey })).headers.get('etag')).to.equal(next);

    const stale = await call('PUT', path, { key: a.userKey, body: { title: 'Theirs' }, headers: { 'if-match': tag } });
    expect(stale.status, stale.text).to.equal(412);
    expect(stale.body.code).to.equal('precondition_failed');
    expect((await call('GET', path, { key: a.userKey })).body.title).to.equal('Mine');
    expect((await call('PUT', path, { key: a.userKey, body: { title: 'Any' }, headers: { 'if-match': '*' } })).status).to.equal(200);
    expect(
      (
        await call('PUT', path, {
          key: a.userKey,
          body: { title: 'Listed' },
          headers: { 'if-match': `"nope", ${(await call('GET', path, { key: a.userKey })).headers.get('etag')}` },
        })
      ).status,
    ).to.equal(200);
  });

  it('lets exactly one of 8 concurrent graph edits that name the same ETag through; the others answer 412', async () => {
    const path = `/agents/${agent.id}/flows/${agent.defaultFlowId}`;
    const tag = (await call('GET', `${path}/graph`, { key: a.userKey })).headers.get('etag')!;
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call('POST', `${path}/nodes`, { key: a.userKey, body: { type: 'SAY_AI', data: { message: `${i}` } }, headers: { 'if-match': tag } }),
      ),
    );
    expect(answers.map((r) => r.status).sort()).to.deep.equal([201, 412, 412, 412, 412, 412, 412, 412]);
    expect((await call('GET', `${path}/graph`, { key: a.userKey })).body.nodes).to.have.length(2);
  });

  it('answers 304 to a GET whose If-None-Match is current, and the document after a change', async () => {
    const path = `/agents/${agent.id}/agent-setting`;
    const tag = (await call('GET', path, { key: a.userKey })).headers.get('etag')!;
    const cached = await call('GET', path, { key: a.userKey, headers: { 'if-none-match': tag } });
    expect(cached.status).to.equal(304);
    expect(cached.text).to.equal('');
    await allAtOnce(a.userKey, [{ method: 'PUT', path, body: { instructions: 'Changed' } }]);
    const fresh = await call('GET', path, { key: a.userKey, headers: { 'if-none-match': tag } });
    expect(fresh.status).to.equal(200);
    expect(fresh.body.instructions).to.equal('Changed');
  });

  it('carries ETags on workflow graphs, variables and resources, and documents If-Match and 412 in the OpenAPI document', async () => {
    const workflow = (await allAtOnce(a.userKey, [{ method: 'POST', path: '/workflows', body: { name: 'Tagged' } }]))[0]!.body;
    const graph = await call('GET', `/workflows/${workflow.id}/graph`, { key: a.userKey });
    const refused = await call('POST', `/workflows/${workflow.id}/nodes`, {
      key: a.userKey,
      body: { type: 'DATA_TRANSFORMER', data: { prompt: 'x' } },
      headers: { 'if-match': '"stale"' },
    });
    expect(refused.status).to.equal(412);
    expect((await call('GET', `/workflows/${workflow.id}/graph`, { key: a.userKey })).headers.get('etag')).to.equal(graph.headers.get('etag'));
    const tool = (await allAtOnce(a.userKey, [{ method: 'POST', path: '/custom-tools', body: { name: 't', url: 'https://x.test/' } }]))[0]!.body;
    expect((await call('GET', `/custom-tools/${tool.id}`, { key: a.userKey })).headers.get('etag')).to.be.a('string');
    const doc = (await call('GET', '/openapi.json', { key: a.userKey })).body;
    const put = doc.paths['/agents/{agentId}/theme'].put;
    expect(put.parameters.map((p: { name: string }) => p.name)).to.include('If-Match');
    expect(put.responses).to.have.property('412');
    expect(doc.paths['/agents/{agentId}/theme'].get.responses['200'].headers).to.have.property('ETag');
  });
});
