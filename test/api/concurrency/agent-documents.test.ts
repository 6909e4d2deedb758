/**
 * Concurrent writes of an agent's documents and the account's resources: N writers of different fields at once,
 * every acknowledged field read back. Before the document locks, the last writer's stale copy erased the others.
 */
import { expect } from 'chai';
import { newAccount } from '../../setup/http.js';
import { newAgent, type Account } from '../agents/agent-calls.helpers.js';
import { allAtOnce, range, read } from './parallel-writes.helpers.js';

const colours = ['primaryColor', 'secondaryColor', 'backgroundColor', 'textColor', 'userBubbleColor', 'agentBubbleColor'];

describe('concurrent writes: agent documents', () => {
  let a: Account;
  let agent: { id: string; defaultFlowId: number };
  before(async () => {
    a = await newAccount();
    agent = await newAgent(a, 'Concurrent');
  });

  it('keeps every field of 10 concurrent theme PUTs that each send a different field', async () => {
    const texts = { title: 'T', subtitle: 'S', welcomeMessage: 'W', inputPlaceholder: 'I' };
    const sent: Record<string, string> = { ...texts, ...Object.fromEntries(colours.map((c, i) => [c, `#00000${i}`])) };
    const path = `/agents/${agent.id}/theme`;
    await allAtOnce(
      a.userKey,
      Object.entries(sent).map(([field, value]) => ({ method: 'PUT', path, body: { [field]: value } })),
    );
    expect(await read(a.userKey, path)).to.include(sent);
  });

  it('keeps instructions, system tools and ids sent by 8 concurrent agent-setting PUTs', async () => {
    const path = `/agents/${agent.id}/agent-setting`;
    const tools = ['endConversation', 'handoffToHuman', 'collectFeedback', 'webSearch'];
    await allAtOnce(a.userKey, [
      { method: 'PUT', path, body: { instructions: 'Be brief.' } },
      { method: 'PUT', path, body: { customToolIds: [] } },
      { method: 'PUT', path, body: { playbookIds: [] } },
      { method: 'PUT', path, body: { aiModelId: null } },
      ...tools.map((tool) => ({ method: 'PUT', path, body: { systemToolSettings: { [tool]: true } } })),
    ]);
    const setting = await read(a.userKey, path);
    expect(setting.instructions).to.equal('Be brief.');
    expect(setting.systemToolSettings).to.include(Object.fromEntries(tools.map((t) => [t, true])));
  });

  it('keeps every channel setting of 8 concurrent PUTs across two channels', async () => {
    const writes = ['livechat', 'instagram'].flatMap((channel) => {
      const path = `/agents/${agent.id}/settings/${channel}`;
      return [
        { method: 'PUT', path, body: { enabled: true } },
        { method: 'PUT', path, body: { enableIdle: true } },
        { method: 'PUT', path, body: { idleSettings: { idleMinutes: 7 } } },
        { method: 'PUT', path, body: { idleSettings: { message: `Still there on ${channel}?` } } },
      ];
    });
    await allAtOnce(a.userKey, writes);
    for (const channel of ['livechat', 'instagram']) {
      const settings = await read(a.userKey, `/agents/${agent.id}/settings/${channel}`);
      expect(settings, channel).to.deep.include({ enabled: true, enableIdle: true });
      expect(settings.idleSettings, channel).to.deep.equal({ idleMinutes: 7, message: `Still there on ${channel}?` });
    }
  });

  it('creates 8 agent variables and 8 intents at once, and keeps 8 concurrent intent renames and phrase lists', async () => {
    const base = `/agents/${agent.id}`;
    await allAtOnce(
      a.userKey,
      range(8).map((i) => ({ method: 'POST', path: `${base}/variables`, body: { name: `var_${i}` } })),
    );
    const intents = await allAtOnce(
      a.userKey,
      range(8).map((i) => ({ method: 'POST', path: `${base}/intents`, body: { name: `Intent ${i}`, trainingPhrases: [`p${i}`] } })),
    );
    expect((await read(a.userKey, `${base}/variables?limit=50`)).agentry.map((v: { name: string }) => v.name)).to.include.members(
      range(8).map((i) => `var_${i}`),
    );
    const ids = intents.map((res) => res.body.id as number);
    await allAtOnce(
      a.userKey,
      ids.flatMap((id, i) => [
        { method: 'PUT', path: `${base}/intents/${id}`, body: { description: `About ${i}` } },
        { method: 'PUT', path: `${base}/intents/${id}`, body: { trainingPhrases: [`p${i}`, `q${i}`] } },
      ]),
    );
    for (const [i, id] of ids.entries()) {
      expect(await read(a.userKey, `${base}/intents/${id}`)).to.deep.include({ description: `About ${i}`, trainingPhrases: [`p${i}`, `q${i}`] });
    }
  });

  it('keeps every field of concurrent PUTs of custom tools, playbooks and knowledge bases; a field written twice holds one whole write', async () => {
    const tool = (await allAtOnce(a.userKey, [{ method: 'POST', path: '/custom-tools', body: { name: 'lookup', url: 'https://tools.test/a' } }]))[0]!
      .body;
    const path = `/custom-tools/${tool.id}`;
    const headers = (n: number) => [{ key: 'X-Version', value: String(n) }];
    await allAtOnce(a.userKey, [
      { method: 'PUT', path, body: { name: 'lookup-2' } },
      { method: 'PUT', path, body: { description: 'Looks things up' } },
      { method: 'PUT', path, body: { method: 'GET' } },
      { method: 'PUT', path, body: { url: 'https://tools.test/b' } },
      { method: 'PUT', path, body: { headers: headers(1) } },
      { method: 'PUT', path, body: { parameters: { type: 'object', properties: { q: { type: 'string' } } } } },
      { method: 'PUT', path, body: { headers: headers(2) } },
      { method: 'PUT', path, body: { description: 'Looks things up' } },
    ]);
    const saved = await read(a.userKey, path);
    expect(saved).to.deep.include({ name: 'lookup-2', description: 'Looks things up', method: 'GET', url: 'https://tools.test/b' });
    expect(saved.parameters).to.deep.equal({ type: 'object', properties: { q: { type: 'string' } } });
    expect([headers(1), headers(2)]).to.deep.include(saved.headers);

    const kb = (await allAtOnce(a.userKey, [{ method: 'POST', path: '/knowledge-bases', body: { name: 'Docs' } }]))[0]!.body;
    const book = (await allAtOnce(a.userKey, [{ method: 'POST', path: '/playbooks', body: { name: 'Refunds' } }]))[0]!.body;
    const documents = [{ title: 'Returns', content: 'Within 30 days.' }];
    await allAtOnce(a.userKey, [
      { method: 'PUT', path: `/knowledge-bases/${kb.id}`, body: { name: 'Help center' } },
      { method: 'PUT', path: `/knowledge-bases/${kb.id}`, body: { description: 'Public articles' } },
      { method: 'PUT', path: `/knowledge-bases/${kb.id}`, body: { documents } },
      { method: 'PUT', path: `/playbooks/${book.id}`, body: { name: 'Refund playbook' } },
      { method: 'PUT', path: `/playbooks/${book.id}`, body: { instructions: 'Ask for the order number.' } },
    ]);
    expect(await read(a.userKey, `/knowledge-bases/${kb.id}`)).to.deep.include({ name: 'Help center', description: 'Public articles', documents });
    expect(await read(a.userKey, `/playbooks/${book.id}`)).to.deep.include({ name: 'Refund playbook', instructions: 'Ask for the order number.' });
  });
});
