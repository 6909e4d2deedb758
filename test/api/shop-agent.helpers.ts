/** An agent worth moving between accounts (bundles.test.ts, bundle-updates.test.ts), and how two exports compare. */
import { newAgent, ok, type Account } from './agents/agent-calls.helpers.js';
import { chain, intent, intentFlow, publish } from './agents/conversation.helpers.js';

export type Json = any;

/** The bundle with every id of the exporting account replaced by the name it stands for: two exports compare by it. */
export function withoutIds(bundle: Json): Json {
  const copy = structuredClone(bundle);
  delete copy.checksum;
  delete copy.source;
  const names = new Map<string, string>();
  for (const i of copy.agent?.intents ?? []) names.set(`intent:${i.ref}`, i.name);
  for (const r of copy.resources ?? []) names.set(`resource:${r.ref}`, r.name);
  const fields: Record<string, string> = { intentIds: 'intent', customToolIds: 'resource', playbookIds: 'resource', knowledgeBaseIds: 'resource' };
  const walk = (value: Json): Json => {
    if (Array.isArray(value)) return value.map(walk);
    if (!value || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => {
        if (key === 'ref') return [key, '(id)'];
        if (fields[key] && Array.isArray(item)) return [key, item.map((id) => names.get(`${fields[key]}:${id}`) ?? `unknown ${id}`)];
        return [key, walk(item)];
      }),
    );
  };
  return walk(copy);
}

/** An agent with two published flows (one draft edited since), an intent, a variable, a theme and a knowledge base. */
export async function shopAgent(a: Account) {
  const agent = await newAgent(a, 'Shop');
  const talking = { ...agent, base: `/agents/${agent.id}` };
  await ok('POST', `${talking.base}/variables`, a.userKey, { name: 'order_id', description: 'The order asked about' });
  const orders = await intent(a, talking, 'Orders', ['where is my order', 'order status']);
  await ok('PUT', `${talking.base}/theme`, a.userKey, { title: 'Shop help', primaryColor: '#abc' }, 200);
  const kb = (await ok('POST', '/knowledge-bases', a.userKey, { name: 'Handbook' })).id;
  await ok('POST', `/knowledge-bases/${kb}/documents`, a.userKey, { title: 'Returns', content: '# Returns\n\nWithin 30 days.' });
  await ok('PUT', `${talking.base}/agent-setting`, a.userKey, { instructions: 'Be brief', knowledgeBaseIds: [kb] }, 200);
  await chain(a, talking, agent.defaultFlowId, [{ type: 'SAY_AI', data: { message: 'Welcome to {agent_name}' } }], 'start_1');
  await publish(a, talking, agent.defaultFlowId);
  const flow = await intentFlow(a, talking, 'Orders', [orders], [{ type: 'SAY_AI', data: { message: 'Looking up {order_id}' } }]);
  await chain(a, talking, flow.flowId, [{ type: 'SAY_AI', data: { message: 'Anything else?' } }], flow.nodeIds.at(-1));
  return talking;
}
