/** Agent setting, theme and channel settings through HTTP. */
import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { issueAt, newAgent, ok, refused, type Account } from './agent-calls.helpers.js';

describe('agent settings, theme and channels', () => {
  let a: Account;
  let agent: { id: string };
  before(async () => {
    a = await newAccount();
    agent = await newAgent(a);
  });

  it('reads the default agent setting and updates it, checking the model and every id against the account', async () => {
    const path = `/agents/${agent.id}/agent-setting`;
    expect(await ok('GET', path, a.generalKey)).to.deep.include({ instructions: '', aiModelId: null, customToolIds: [] });
    const b = await newAccount();
    const foreignTool = await ok('POST', '/custom-tools', b.userKey, { name: 'x', url: 'https://x.test' });
    const cases: [unknown, string, string, RegExp][] = [
      [{ aiModelId: -9999 }, 'aiModelId', 'not_found', /no AI model -9999/],
      [{ aiModelId: -9 }, 'aiModelId', 'invalid', /deprecated/],
      [{ aiModelId: -20 }, 'aiModelId', 'invalid', /the agent setting needs a TEXT model/],
      [{ customToolIds: [foreignTool.id] }, 'customToolIds[0]', 'not_found', /no custom tool/],
      [{ playbookIds: [123456] }, 'playbookIds[0]', 'not_found', /no playbook/],
      [{ knowledgeBaseIds: [123456] }, 'knowledgeBaseIds[0]', 'not_found', /no knowledge base/],
      [{ connectedAccountIds: [123456] }, 'connectedAccountIds[0]', 'not_found', /no connected account/],
      [{ aiModelId: '-1' }, 'aiModelId', 'invalid', /integer/],
      [{ systemToolSettings: { selfDestruct: true } }, 'systemToolSettings.selfDestruct', 'unknown_field', /not an allowed/],
    ];
    for (const [body, at, code, message] of cases) {
      const issue = issueAt(await refused('PUT', path, a.userKey, 400, body), at);
      expect([issue.code, issue.message]).to.satisfy(([c, m]: [string, string]) => c === code && message.test(m));
    }
    expect((await ok('GET', path, a.generalKey)).aiModelId).to.equal(null);
    await refused('PUT', path, a.generalKey, 403, { instructions: 'x' });
    const tool = await ok('POST', '/custom-tools', a.userKey, { name: 'Lookup', url: 'https://shop.test' });
    const saved = await ok('PUT', path, a.userKey, {
      instructions: 'Be brief',
      aiModelId: -4,
      customToolIds: [tool.id],
      systemToolSettings: { webSearch: true },
    });
    expect(saved).to.deep.include({ instructions: 'Be brief', aiModelId: -4, customToolIds: [tool.id] });
    expect(saved.systemToolSettings).to.deep.equal({ endConversation: true, handoffToHuman: false, collectFeedback: false, webSearch: true });
    expect(await ok('GET', path, a.generalKey)).to.deep.equal(saved);
  });

  it('updates the theme with colours #rgb, #rrggbb or #rrggbbaa and bounded texts', async () => {
    const path = `/agents/${agent.id}/theme`;
    const theme = await ok('PUT', path, a.userKey, { primaryColor: '#abc', backgroundColor: '#11223344', title: 'Helper' });
    expect(theme).to.include({ primaryColor: '#abc', backgroundColor: '#11223344', title: 'Helper', position: 'right' });
    for (const [body, at] of [
      [{ primaryColor: 'red' }, 'primaryColor'],
      [{ textColor: '#12345' }, 'textColor'],
      [{ title: 'x'.repeat(101) }, 'title'],
      [{ logoUrl: 'https://x.test/a.png' }, 'logoUrl'],
      [{ position: 'top' }, 'position'],
    ] as const) {
      issueAt(await refused('PUT', path, a.userKey, 400, body), at);
    }
    expect(await ok('GET', path, a.generalKey)).to.deep.equal(theme);
  });

  it('reads and updates channel settings of livechat and the messaging channels; an unknown channel is 404', async () => {
    const all = await ok('GET', `/agents/${agent.id}/settings`, a.generalKey);
    expect(all).to.have.keys('livechat', 'messaging', 'instagram', 'facebook');
    expect(all.livechat).to.deep.equal({ enabled: true, enableIdle: false, idleSettings: { idleMinutes: 30, message: '' }, allowedOrigins: [] });
    expect(all.messaging.enabled).to.equal(false);
    const saved = await ok('PUT', `/agents/${agent.id}/settings/messaging`, a.userKey, { enableIdle: true, idleSettings: { idleMinutes: 15 } });
    expect(saved).to.deep.equal({ enabled: false, enableIdle: true, idleSettings: { idleMinutes: 15, message: '' } });
    expect(await ok('GET', `/agents/${agent.id}/settings/messaging`, a.generalKey)).to.deep.equal(saved);
    issueAt(
      await refused('PUT', `/agents/${agent.id}/settings/livechat`, a.userKey, 400, { idleSettings: { idleMinutes: 0 } }),
      'idleSettings.idleMinutes',
    );
    issueAt(
      await refused('PUT', `/agents/${agent.id}/settings/livechat`, a.userKey, 400, { idleSettings: { idleMinutes: 100000 } }),
      'idleSettings.idleMinutes',
    );
    issueAt(await refused('PUT', `/agents/${agent.id}/settings/livechat`, a.userKey, 400, { enableIdle: 'yes' }), 'enableIdle');
    const origins = ['https://shop.example', 'http://127.0.0.1:8080'];
    expect((await ok('PUT', `/agents/${agent.id}/settings/livechat`, a.userKey, { allowedOrigins: origins })).allowedOrigins).to.deep.equal(origins);
    issueAt(
      await refused('PUT', `/agents/${agent.id}/settings/livechat`, a.userKey, 400, { allowedOrigins: ['https://shop.example/page'] }),
      'allowedOrigins[0]',
    );
    issueAt(await refused('PUT', `/agents/${agent.id}/settings/messaging`, a.userKey, 400, { allowedOrigins: origins }), 'allowedOrigins');
    await refused('GET', `/agents/${agent.id}/settings/telegram`, a.generalKey, 404);
    await refused('PUT', `/agents/${agent.id}/settings/telegram`, a.userKey, 404, { enableIdle: true });
    await refused('PUT', `/agents/${agent.id}/settings/livechat`, a.generalKey, 403, { enableIdle: true });
    const rows = await harness()
      .orm.em.getKnex()
      .raw("select count(*)::int as n from agent_configs where agent_id = ? and kind like 'CHANNEL:%'", [agent.id]);
    expect(rows.rows[0].n).to.equal(4);
  });

  it('answers analytics and conversations from no data, correctly shaped', async () => {
    const analytics = await ok('GET', `/agents/${agent.id}/analytics?startDate=2026-01-01&endDate=2026-01-31`, a.generalKey);
    expect(analytics).to.deep.include({ startDate: '2026-01-01', endDate: '2026-01-31', creditsUsed: 0 });
    expect(analytics.byChannel.map((c: { channel: string }) => c.channel)).to.deep.equal(['livechat', 'messaging', 'instagram', 'facebook']);
    expect(await ok('GET', `/agents/${agent.id}/conversations`, a.userKey)).to.deep.equal({ agentry: [], nextCursor: null });
    await refused('GET', `/agents/${agent.id}/conversations`, a.generalKey, 403);
    expect((await refused('GET', `/agents/${agent.id}/conversations/c1`, a.userKey, 404)).message).to.equal('Conversation c1 not found');
  });
});
