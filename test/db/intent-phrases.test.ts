/** Loading an agent's intents for local matching: the agent's own intents only, never another account's. */
import { expect } from 'chai';
import { loadIntentPhrases } from '../../db/agents/intent-phrases.js';
import { matchIntents } from '../../lib/intents/intent-match.js';
import { newAgent, ok, type Account } from '../api/agents/helpers.js';
import { harness } from '../setup/harness.js';
import { newAccount } from '../setup/http.js';

describe('loading intent phrases', () => {
  let a: Account;
  let b: Account;
  let agentA: { id: string };
  let agentB: { id: string };
  let cancel: { id: number };
  let hours: { id: number };
  let otherAgentIntent: { id: number };
  let otherAccountIntent: { id: number };
  const em = () => harness().orm.em.fork();
  const intent = (acct: Account, agentId: string, name: string, trainingPhrases: string[]) =>
    ok('POST', `/agents/${agentId}/intents`, acct.userKey, { name, trainingPhrases });

  before(async () => {
    [a, b] = [await newAccount(), await newAccount()];
    [agentA, agentB] = [await newAgent(a), await newAgent(b)];
    cancel = await intent(a, agentA.id, 'Cancel order', ['I want to cancel my order', 'stop my order']);
    hours = await intent(a, agentA.id, 'Opening hours', ['when do you open']);
    otherAgentIntent = await intent(a, (await newAgent(a, 'Sales')).id, 'Pricing', ['how much']);
    // The other account uses the same names and phrases: only ids and ownership tell them apart.
    otherAccountIntent = await intent(b, agentB.id, 'Cancel order', ['cancel my order now']);
  });

  it("answers the agent's intents by id with their training phrases, and the matcher finds the right one", async () => {
    const loaded = await loadIntentPhrases(em(), a.account.id, agentA.id);
    expect(loaded).to.deep.equal([
      { id: cancel.id, name: 'Cancel order', phrases: ['I want to cancel my order', 'stop my order'] },
      { id: hours.id, name: 'Opening hours', phrases: ['when do you open'] },
    ]);
    expect(matchIntents('please cancel my order', loaded).best).to.include({ intentId: cancel.id });
    expect((await loadIntentPhrases(em(), a.account.id, agentA.id.toUpperCase(), [hours.id])).map((i) => i.id)).to.deep.equal([hours.id]);
    expect(await loadIntentPhrases(em(), a.account.id, agentA.id, [])).to.deep.equal([]);
  });

  it("never loads another account's or another agent's intents", async () => {
    expect(await loadIntentPhrases(em(), b.account.id, agentA.id)).to.deep.equal([]);
    expect(await loadIntentPhrases(em(), a.account.id, agentB.id)).to.deep.equal([]);
    expect(await loadIntentPhrases(em(), a.account.id, agentA.id, [otherAccountIntent.id, otherAgentIntent.id])).to.deep.equal([]);
    const own = await loadIntentPhrases(em(), b.account.id, agentB.id);
    expect(own.map((i) => i.id)).to.deep.equal([otherAccountIntent.id]);
    expect(await loadIntentPhrases(em(), a.account.id, 'not-a-uuid')).to.deep.equal([]);
  });

  it('answers nothing once the agent is deleted', async () => {
    const gone = await newAgent(a, 'Temporary');
    await intent(a, gone.id, 'Greeting', ['hello']);
    expect(await loadIntentPhrases(em(), a.account.id, gone.id)).to.have.length(1);
    await ok('DELETE', `/agents/${gone.id}`, a.userKey, undefined, 204);
    expect(await loadIntentPhrases(em(), a.account.id, gone.id)).to.deep.equal([]);
  });
});
