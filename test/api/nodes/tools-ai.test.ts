import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { AiReply } from '../../../lib/runtime/ai-call.js';
import { recordedActivities } from '../../setup/activity-history.js';
import { harness } from '../../setup/harness.js';
import { call, newAccount } from '../../setup/http.js';
import { executeNodeAttempt } from '../../setup/node-executions.js';
import { draftWorkflow } from './node-runs.helpers.js';

/** A local service a custom tool calls: records each call, answers the order's status. */
async function startOrders(): Promise<{ server: Server; origin: string; hits: { method: string; url: string; body: string; auth?: string }[] }> {
  const hits: { method: string; url: string; body: string; auth?: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      hits.push({ method: req.method!, url: req.url!, body, auth: req.headers['x-api-key'] as string | undefined });
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ order: new URL(req.url!, 'http://x').searchParams.get('id'), status: 'shipped' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

/** Saves the custom tool "order status" (GET `url?id=…`) of the account of `key`; answers its id. */
async function orderStatusTool(key: string, url: string, headers?: { key: string; value: string }[]): Promise<number> {
  const tool = await call('POST', '/custom-tools', {
    key,
    body: {
      name: 'order status',
      description: 'Status of an order',
      method: 'GET',
      url,
      ...(headers ? { headers } : {}),
      parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  });
  expect(tool.status, tool.text).to.equal(201);
  return tool.body.id as number;
}

describe('TOOLS_AI nodes in workflows', function () {
  this.timeout(60_000);
  let orders: Awaited<ReturnType<typeof startOrders>>;
  before(async () => {
    orders = await startOrders();
  });
  after(() => orders.server.close());

  it('runs the tools the model calls (a custom tool over HTTP, a table write), feeds results back, follows playbooks, and captures', async () => {
    const { userKey: key } = await newAccount();
    const toolId = await orderStatusTool(key, `${orders.origin}/orders`, [{ key: 'x-api-key', value: 'secret-1' }]);
    const playbook = await call('POST', '/playbooks', { key, body: { name: 'Tone', instructions: 'Always log the contact in People.' } });
    expect(playbook.status, playbook.text).to.equal(201);
    const people = (await call('GET', '/objects/people', { key })).body;
    const recordTypeId = people.recordTypes[0].id as number;
    const wf = await draftWorkflow(key, ['status']);
    const node = await wf.node('TOOLS_AI', {
      prompt: 'Customer {trigger_payload} asks about order 77',
      customToolIds: [toolId],
      playbookIds: [playbook.body.id],
      selectedRecordTypes: [{ id: recordTypeId }],
      captureVariables: [{ name: 'status' }],
    });
    const toolName = `tool_${toolId}_order_status`;
    const createName = `create_${recordTypeId}_People`;
    harness().ai.script(
      { toolCalls: [{ name: toolName, arguments: { id: '77' } }] },
      { toolCalls: [{ name: createName, arguments: { values: { 'First name': 'Ada', Email: 'ada@example.test' } } }] },
      { content: 'Order 77 has shipped; Ada is logged.' },
      { content: '{"status":"shipped"}' },
    );
    const run = await wf.run(node, 'Ada');
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(orders.hits).to.deep.equal([{ method: 'GET', url: '/orders?id=77', body: '', auth: 'secret-1' }]);
    const output = run.nodeResults[0].output as { answer: string; toolCalls: { name: string; result: any }[]; captures: unknown };
    expect(output.answer).to.equal('Order 77 has shipped; Ada is logged.');
    expect(output.toolCalls.map((c) => c.name)).to.deep.equal([toolName, createName]);
    expect(output.toolCalls[0].result).to.deep.equal({ status: 200, body: { order: '77', status: 'shipped' } });
    expect(run.variables.status).to.equal('shipped');
    expect(run.aiCredits).to.equal(4 * 5);

    const [first, second] = harness().ai.chats;
    expect((first.body.tools as { function: { name: string } }[]).map((t) => t.function.name)).to.include.members([toolName, createName]);
    expect((first.body.messages as { content: string }[])[0].content).to.contain('Always log the contact in People.');
    const fed = (second.body.messages as { role: string; content: string; tool_call_id?: string }[]).at(-1)!;
    expect(fed).to.deep.include({ role: 'tool', tool_call_id: 'call_0' });
    expect(JSON.parse(fed.content)).to.deep.equal({ status: 200, body: { order: '77', status: 'shipped' } });
    const rows = await call('POST', '/objects/people/rows/list', { key, body: { search: 'ada@example.test' } });
    expect(rows.body.agentry.map((r: { data: Record<string, unknown> }) => r.data['First name'])).to.deep.equal(['Ada']);
    // The captures are read from the whole exchange: the prompt, each round's calls and answers, the final answer.
    const source = (harness().ai.chats[3].body.messages as { content: string }[])[1].content.split('\n');
    expect(source[0]).to.equal('user: Customer Ada asks about order 77');
    expect(source.filter((line) => line.startsWith('tool: '))).to.have.length(2);
    expect(source.at(-1)).to.equal('assistant: Order 77 has shipped; Ada is logged.');
  });

  it('runs each tool round in a finish step of its own, making each custom-tool HTTP call once', async () => {
    const { userKey: key } = await newAccount();
    const toolId = await orderStatusTool(key, `${orders.origin}/twice`);
    const wf = await draftWorkflow(key);
    const node = await wf.node('TOOLS_AI', { prompt: 'Compare orders 1 and 2', customToolIds: [toolId] });
    const name = `tool_${toolId}_order_status`;
    orders.hits.length = 0;
    harness().ai.script(
      { toolCalls: [{ name, arguments: { id: '1' } }] },
      { toolCalls: [{ name, arguments: { id: '2' } }] },
      { content: 'Both have shipped.' },
    );
    const run = await wf.run(node);
    expect(run.successful, JSON.stringify(run)).to.equal(true);
    expect(orders.hits.map((h) => h.url)).to.deep.equal(['/twice?id=1', '/twice?id=2']);
    const types = (await recordedActivities(run.logId, ['executeNode', 'prepareAiNode', 'aiCall', 'finishAiNode'])).map((a) => a.type);
    expect(types).to.deep.equal(['prepareAiNode', 'aiCall', 'finishAiNode', 'aiCall', 'finishAiNode', 'aiCall', 'finishAiNode']);
    // The third call carries both tool results, as the tool answered them.
    const fed = (harness().ai.chats[2].body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool');
    expect(fed.map((m) => JSON.parse(m.content).body.order)).to.deep.equal(['1', '2']);
  });

  it('tells the model about refused tool calls, and fails after too many tool rounds', async () => {
    const { userKey: key } = await newAccount();
    const people = (await call('GET', '/objects/people', { key })).body;
    const recordTypeId = people.recordTypes[0].id as number;
    const wf = await draftWorkflow(key);
    const node = await wf.node('TOOLS_AI', { prompt: 'go', selectedRecordTypes: [{ id: recordTypeId }] });
    const bad = { toolCalls: [{ name: `create_${recordTypeId}_People`, arguments: { values: { Nope: 1 } } }] };
    harness().ai.script(bad, { toolCalls: [{ name: 'made_up', arguments: {} }] }, bad, bad, bad);
    const run = await wf.run(node);
    expect(run.successful).to.equal(false);
    expect(run.error!.message).to.equal('The AI model was still calling tools after 5 rounds');
    const fed = (harness().ai.chats[1].body.messages as { role: string; content: string }[]).at(-1)!;
    expect(JSON.parse(fed.content).error).to.match(/Nope/);
    const unknown = (harness().ai.chats[2].body.messages as { role: string; content: string }[]).at(-1)!;
    expect(JSON.parse(unknown.content)).to.deep.equal({ error: 'there is no tool made_up' });
  });

  it('runs for a run started before TOOLS_AI had steps: executeNode with the replies so far asks for the same calls and answers', async () => {
    const { account, userKey: key } = await newAccount();
    const toolId = await orderStatusTool(key, `${orders.origin}/legacy`);
    const name = `tool_${toolId}_order_status`;
    const execution = {
      accountId: account.id,
      type: 'TOOLS_AI',
      data: { prompt: 'Where is order 9?', customToolIds: [toolId] },
      executionKey: `legacy-${account.id}#1`,
    };
    const reply = (content: string, toolCalls: AiReply['toolCalls'] = []): AiReply => ({
      kind: 'chat',
      content,
      toolCalls,
      record: { model: 'gpt-4o', promptTokens: 1, completionTokens: 1, latencyMs: 1, credits: 5 },
    });
    const calling = reply('', [{ id: 'call_0', name, arguments: '{"id":"9"}' }]);
    orders.hits.length = 0;
    harness().ai.script();

    const first = await executeNodeAttempt(execution);
    expect(first.aiCall).to.deep.include({ callKey: `legacy-${account.id}#1/ai-1` });
    const firstCall = first.aiCall!.call as { messages: { role: string; content: string }[]; tools: { name: string }[] };
    expect(firstCall.messages.map((m) => m.role)).to.deep.equal(['system', 'user']);
    expect(firstCall.tools.map((t) => t.name)).to.deep.equal([name]);

    // The node executed again with the tool call's reply (and once more, as a retry): the tool is called once.
    for (const attempt of [1, 2]) {
      const second = await executeNodeAttempt({ ...execution, aiReplies: [calling] }, attempt);
      expect(second.aiCall).to.deep.include({ callKey: `legacy-${account.id}#1/ai-2` });
      const messages = (second.aiCall!.call as { messages: { role: string; content: string; toolCallId?: string }[] }).messages;
      expect(messages.map((m) => m.role)).to.deep.equal(['system', 'user', 'assistant', 'tool']);
      expect(JSON.parse(messages[3].content)).to.deep.equal({ status: 200, body: { order: '9', status: 'shipped' } });
    }
    expect(orders.hits.map((h) => h.url)).to.deep.equal(['/legacy?id=9']);

    const done = await executeNodeAttempt({ ...execution, aiReplies: [calling, reply('Order 9 has shipped.')] });
    expect(done).to.deep.equal({
      output: {
        answer: 'Order 9 has shipped.',
        toolCalls: [{ name, arguments: { id: '9' }, result: { status: 200, body: { order: '9', status: 'shipped' } } }],
        captures: {},
      },
      aiCredits: 10,
    });
    expect(orders.hits).to.have.length(1);
    expect(harness().ai.requests).to.have.length(0);
  });
});
