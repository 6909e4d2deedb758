/** Custom tools, playbooks and knowledge bases (extensions) through HTTP. */
import { expect } from 'chai';
import { call, newAccount } from '../../setup/http.js';
import { issueAt, ok, refused, type Account } from './agent-calls.helpers.js';

describe('custom tools, playbooks and knowledge bases', () => {
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('creates, lists page by page, reads, updates and deletes each kind, kept apart by account and by kind', async () => {
    const tool = await ok('POST', '/custom-tools', a.userKey, {
      name: 'Orders',
      url: 'https://shop.test/orders',
      method: 'GET',
      headers: [{ key: 'X-Key', value: '{secret}' }],
    });
    expect(tool).to.deep.include({ name: 'Orders', method: 'GET', description: '', parameters: { type: 'object', properties: {} } });
    const playbook = await ok('POST', '/playbooks', a.userKey, { name: 'Tone', instructions: 'Be kind' });
    const kb = await ok('POST', '/knowledge-bases', a.userKey, { name: 'FAQ', documents: [{ title: 'Returns', content: '30 days' }] });
    await ok('POST', '/playbooks', a.userKey, { name: 'Second' });
    const first = await ok('GET', '/playbooks?limit=1', a.generalKey);
    expect(first.agentry.map((p: { id: number }) => p.id)).to.deep.equal([playbook.id]);
    const second = await ok('GET', `/playbooks?limit=1&cursor=${first.nextCursor}`, a.generalKey);
    expect(second.agentry[0].name).to.equal('Second');
    expect(second.nextCursor).to.equal(null);
    expect((await ok('PUT', `/knowledge-bases/${kb.id}`, a.userKey, { name: 'Help' })).documents).to.deep.equal([
      { title: 'Returns', content: '30 days' },
    ]);
    await refused('GET', `/playbooks/${tool.id}`, a.userKey, 404);
    const b = await newAccount();
    await refused('GET', `/custom-tools/${tool.id}`, b.userKey, 404);
    await refused('DELETE', `/custom-tools/${tool.id}`, b.userKey, 404);
    await refused('POST', '/playbooks', a.generalKey, 403, { name: 'x' });
    await ok('DELETE', `/custom-tools/${tool.id}`, a.userKey, undefined, 204);
    await refused('GET', `/custom-tools/${tool.id}`, a.userKey, 404);
  });

  it('refuses bad bodies naming the field', async () => {
    issueAt(await refused('POST', '/custom-tools', a.userKey, 400, { name: 'x' }), 'url');
    issueAt(await refused('POST', '/custom-tools', a.userKey, 400, { name: 'x', url: 'ftp://x.test' }), 'url');
    issueAt(await refused('POST', '/custom-tools', a.userKey, 400, { name: 'x', url: 'https://x.test', method: 'FETCH' }), 'method');
    issueAt(await refused('POST', '/knowledge-bases', a.userKey, 400, { name: 'x', documents: [{ title: 'no content' }] }), 'documents[0].content');
    issueAt(await refused('POST', '/playbooks', a.userKey, 400, { name: ' ' }), 'name');
    expect((await ok('GET', '/playbooks', a.userKey)).agentry.map((p: { name: string }) => p.name)).to.not.include(' ');
  });

  it('are documented as extensions in the OpenAPI document', async () => {
    const doc = (await call('GET', '/openapi.json')).body;
    for (const path of ['/custom-tools', '/playbooks', '/knowledge-bases']) {
      expect(doc.paths[path].post.tags[0]).to.match(/\(extension\)$/);
      expect(doc.paths[`${path}/{id}`]).to.have.keys('get', 'put', 'delete');
    }
  });
});
