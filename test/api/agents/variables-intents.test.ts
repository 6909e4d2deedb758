/** Agent variables and intents through HTTP, and the references flow nodes hold to them. */
import { expect } from 'chai';
import { newAccount } from '../../setup/http.js';
import { issueAt, newAgent, ok, refused, type Account } from './agent-calls.helpers.js';

describe('agent variables and intents', () => {
  let a: Account;
  let agent: { id: string; defaultFlowId: number };
  before(async () => {
    a = await newAccount();
    agent = await newAgent(a);
  });

  it('creates, lists, checks names, reads, renames and deletes variables; built-ins are listed and reserved', async () => {
    const base = `/agents/${agent.id}/variables`;
    const v = await ok('POST', base, a.userKey, { name: 'email', description: 'Their email' });
    expect(v).to.include({ name: 'email', description: 'Their email' });
    await refused('POST', base, a.userKey, 409, { name: 'email' });
    issueAt(await refused('POST', base, a.userKey, 400, { name: 'contact_name' }), 'name');
    issueAt(await refused('POST', base, a.userKey, 400, { name: '1st' }), 'name');
    expect((await ok('GET', base, a.userKey)).agentry.map((x: { name: string }) => x.name)).to.deep.equal(['email']);
    const all = (await ok('GET', `${base}/all`, a.userKey)).agentry;
    expect(all.filter((x: { builtIn: boolean }) => x.builtIn).map((x: { name: string }) => x.name)).to.include.members([
      'last_user_message',
      'conversation_id',
      'contact_name',
    ]);
    expect(await ok('GET', `${base}/check-name?name=email`, a.userKey)).to.deep.equal({ exists: true });
    expect(await ok('GET', `${base}/check-name?name=channel`, a.userKey)).to.deep.equal({ exists: true });
    expect(await ok('GET', `${base}/check-name?name=other`, a.userKey)).to.deep.equal({ exists: false });
    expect((await ok('PUT', `${base}/${v.id}`, a.userKey, { name: 'mail' })).name).to.equal('mail');
    expect((await ok('GET', `${base}/${v.id}`, a.userKey)).name).to.equal('mail');
    await refused('GET', base, a.generalKey, 403);
    const other = await newAgent(a, 'Other');
    await refused('GET', `/agents/${other.id}/variables/${v.id}`, a.userKey, 404);
    await ok('DELETE', `${base}/${v.id}`, a.userKey, undefined, 204);
    await refused('GET', `${base}/${v.id}`, a.userKey, 404);
  });

  it('refuses deleting a variable a flow node interpolates or captures into, naming the nodes', async () => {
    const base = `/agents/${agent.id}/variables`;
    const read = await ok('POST', base, a.userKey, { name: 'city' });
    const captured = await ok('POST', base, a.userKey, { name: 'answer' });
    const flows = `/agents/${agent.id}/flows/${agent.defaultFlowId}`;
    await ok('POST', `${flows}/nodes`, a.generalKey, { type: 'SAY_AI', data: { message: 'Weather in {city}' } });
    await ok('POST', `${flows}/nodes`, a.generalKey, { type: 'RESPONSE_AI', data: { captureVariables: [{ name: 'answer' }] } });
    expect((await refused('DELETE', `${base}/${read.id}`, a.userKey, 409)).message).to.match(/flow "Start" node say_ai_1 \(SAY_AI\)/);
    expect((await refused('DELETE', `${base}/${captured.id}`, a.userKey, 409)).message).to.match(/node response_ai_1 \(RESPONSE_AI\)/);
    await ok('DELETE', `${flows}/nodes/say_ai_1`, a.generalKey);
    await ok('DELETE', `${base}/${read.id}`, a.userKey, undefined, 204);
  });

  it('creates intents with training phrases, lists, updates, and refuses deleting one a TRIGGER_INTENT lists', async () => {
    const base = `/agents/${agent.id}/intents`;
    issueAt(await refused('POST', base, a.userKey, 400, { name: 'refund', trainingPhrases: ['money back', ''] }), 'trainingPhrases[1]');
    const created = await ok('POST', base, a.userKey, {
      name: 'refund',
      description: 'Wants money',
      trainingPhrases: [' money back ', 'Money back', 'refund please'],
    });
    expect(created.trainingPhrases).to.deep.equal(['money back', 'refund please']);
    await refused('POST', base, a.userKey, 409, { name: 'refund' });
    issueAt(await refused('POST', base, a.userKey, 400, { name: 'x', trainingPhrases: 'refund' }), 'trainingPhrases');
    expect((await ok('GET', base, a.userKey)).agentry).to.have.length(1);
    expect((await ok('GET', `${base}/all`, a.userKey)).agentry[0].id).to.equal(created.id);
    expect((await ok('PUT', `${base}/${created.id}`, a.userKey, { trainingPhrases: ['give it back'] })).trainingPhrases).to.deep.equal([
      'give it back',
    ]);
    const flow = await ok('POST', `/agents/${agent.id}/flows`, a.generalKey, { name: 'Refunds' });
    await ok('POST', `/agents/${agent.id}/flows/${flow.id}/nodes`, a.generalKey, { type: 'TRIGGER_INTENT', data: { intentIds: [created.id] } });
    expect((await refused('DELETE', `${base}/${created.id}`, a.userKey, 409)).message).to.match(
      /flow "Refunds" node trigger_intent_1 \(TRIGGER_INTENT\)/,
    );
    await ok('DELETE', `/agents/${agent.id}/flows/${flow.id}/nodes/trigger_intent_1`, a.generalKey);
    await ok('DELETE', `${base}/${created.id}`, a.userKey, undefined, 204);
    await refused('GET', `${base}/${created.id}`, a.userKey, 404);
  });

  it('answers generate-phrases with 503 naming the AI gateway settings, and invents nothing', async () => {
    const error = await refused('POST', `/agents/${agent.id}/intents/generate-phrases`, a.userKey, 503, { name: 'refund', count: 5 });
    expect(error.message)
      .to.match(/AI_BASE_URL/)
      .and.to.match(/AI_API_KEY/);
    expect(error).to.not.have.property('phrases');
    await refused('POST', `/agents/${agent.id}/intents/generate-phrases`, a.generalKey, 403, { name: 'refund' });
    const b = await newAccount();
    await refused('POST', `/agents/${agent.id}/intents/generate-phrases`, b.userKey, 404, { name: 'refund' });
  });
});
