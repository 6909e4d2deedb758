import { expect } from 'chai';
import { harness } from '../../setup/harness.js';
import { newAccount } from '../../setup/http.js';
import { draftWorkflow } from './node-runs.helpers.js';

describe('DATA_TRANSFORMER nodes through the AI gateway (a local OpenAI-compatible server)', function () {
  this.timeout(60_000);
  const ai = () => harness().ai;

  it('DATA_TRANSFORMER answers JSON when the model writes JSON (code fence allowed), else the text', async () => {
    const { userKey: key } = await newAccount();
    const wf = await draftWorkflow(key);
    const json = await wf.node('DATA_TRANSFORMER', { prompt: 'Split {trigger_payload} into first and last name' });
    const plain = await wf.node('DATA_TRANSFORMER', { prompt: 'Greet {' + json + '.first}' });
    await wf.edge(json, 'default', plain);
    ai().script({ content: '```json\n{"first":"Ada","last":"Lovelace"}\n```' }, { content: ' Hello Ada! ' });
    const run = await wf.run(json, 'Ada Lovelace');
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(run.nodeResults.map((r) => r.output)).to.deep.equal([{ first: 'Ada', last: 'Lovelace' }, 'Hello Ada!']);
    expect((ai().chats[1].body.messages as { content: string }[])[1].content).to.equal('Greet Ada');
  });
});
