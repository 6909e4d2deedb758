import { harness } from './setup/harness.js';
import { newAccount } from './setup/http.js';
import { intent, intentFlow, say, startConversation, talkingAgent } from './api/agents/conversation.helpers.js';

describe('tmp profile', function () {
  this.timeout(120_000);
  it('profiles turns', async () => {
    const a = await newAccount();
    const agent = await talkingAgent(a, [{ type: 'SAY_AI', data: { message: 'Hello!' } }]);
    const hours = await intent(a, agent, 'hours', ['when are you open']);
    await intentFlow(a, agent, 'Hours', [hours], [{ type: 'SAY_AI', data: { message: 'We open at 9.' } }]);
    const c = await startConversation(a, agent);
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const t = performance.now();
      await say(a, agent, c.id, 'when are you open');
      times.push(performance.now() - t);
    }
    times.sort((x, y) => x - y);
    console.log('p50', times[15].toFixed(1), 'min', times[0].toFixed(1));
    const history = await harness().env.client.workflow.getHandle(c.temporalWorkflowId).fetchHistory();
    const events = history.events!;
    const ms = (e: any) => Number(e.eventTime.seconds) * 1000 + Math.round(e.eventTime.nanos / 1e6);
    const last = events.slice(-12);
    const t0 = ms(last[0]);
    for (const e of last)
      console.log(
        String(ms(e) - t0).padStart(5),
        e.eventType,
        Object.keys(e).find((k) => k.endsWith('Attributes')),
      );
  });
});
