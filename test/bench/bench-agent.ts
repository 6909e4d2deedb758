/** The benchmarks' talking agent: greets, and answers "When are you open?" through an intent flow, with no AI call. */
import type { benchApi } from './bench-processes.js';

export const HOURS_REPLY = 'We are open from 9 to 5.';

export async function hoursAgent(api: ReturnType<typeof benchApi>): Promise<{ id: string; base: string }> {
  const agent = await api('POST', '/agents', { name: 'Bench agent' });
  const base = `/agents/${agent.id}`;
  const chain = async (flowId: number, nodes: object[], after?: string) => {
    let previous = after;
    for (const node of nodes) {
      const nodeId = (await api('POST', `${base}/flows/${flowId}/nodes`, node)).nodes.at(-1).nodeId;
      if (previous) await api('POST', `${base}/flows/${flowId}/edges`, { source: previous, handle: 'default', targetEdge: nodeId });
      previous = nodeId;
    }
    await api('POST', `${base}/flows/${flowId}/publish`);
  };
  await chain(agent.defaultFlowId, [{ type: 'SAY_AI', data: { message: 'Hello! Ask me about our opening hours.' } }], 'start_1');
  const hours = await api('POST', `${base}/intents`, { name: 'hours', trainingPhrases: ['when are you open', 'what are your opening hours'] });
  const flow = await api('POST', `${base}/flows`, { name: 'Hours' });
  await chain(flow.id, [
    { type: 'TRIGGER_INTENT', data: { intentIds: [hours.id] } },
    { type: 'SAY_AI', data: { message: HOURS_REPLY } },
  ]);
  await api('PUT', `${base}/deployment-status`, { isOffline: false });
  return { id: agent.id, base };
}
