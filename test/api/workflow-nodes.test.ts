/** Node validation through HTTP: model references of the AI nodes, and capture targets. */
import { expect } from 'chai';
import { call, newAccount } from '../setup/http.js';
import { addNode, expectRefused, graphOf, newVariable, newWorkflow, type Account, type RefusedCase } from './workflow-nodes.helpers.js';

// Catalog ids seeded by the migrations: -1 GPT-4o (TEXT), -4 Claude Sonnet 4 (TEXT), -9 GPT-3.5 Turbo and
// -10 Claude 3 Opus (TEXT, deprecated), -20 Whisper (TRANSCRIPTION), -30 GPT-4o (FILE_ANALYSIS).
describe('workflow nodes: AI model references', () => {
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('refuses unknown, deprecated, wrong-type and half-given models on every AI node, saving nothing', async () => {
    const id = await newWorkflow(a);
    const cases: RefusedCase[] = [
      [{ type: 'TOOLS_AI', data: { aiModelId: -9999 } }, 'data.aiModelId', 'not_found', /^no AI model -9999$/],
      [{ type: 'TOOLS_AI', data: { aiModelId: '-1' } }, 'data.aiModelId', 'invalid', /^must be an integer or null$/],
      [{ type: 'AI_CAPTURE', data: { aiModelId: -9 } }, 'data.aiModelId', 'invalid', /^"GPT-3.5 Turbo" is deprecated; choose another TEXT model/],
      [
        { type: 'DATA_TRANSFORMER', data: { aiModelId: -20 } },
        'data.aiModelId',
        'invalid',
        /^"Whisper" is a TRANSCRIPTION model; DATA_TRANSFORMER nodes need a TEXT model$/,
      ],
      [
        { type: 'TRANSCRIPTION', data: { aiModelId: -1 } },
        'data.aiModelId',
        'invalid',
        /is a TEXT model; TRANSCRIPTION nodes need a TRANSCRIPTION model/,
      ],
      [{ type: 'FILE_ANALYSIS', data: { aiModelId: -20 } }, 'data.aiModelId', 'invalid', /FILE_ANALYSIS nodes need a FILE_ANALYSIS model/],
      [{ type: 'CONDITIONAL_ROUTING', data: { aiModelId: -10 } }, 'data.aiModelId', 'invalid', /"Claude 3 Opus" is deprecated/],
      [{ type: 'SEND_MESSAGE', data: { isDynamic: true, prompt: 'Thank them', aiModelId: -20 } }, 'data.aiModelId', 'invalid', /need a TEXT model/],
      [{ type: 'TOOLS_AI', data: { model: 'gpt-4o' } }, 'data.aiVendor', 'invalid', /^is required with model/],
      [{ type: 'AI_CAPTURE', data: { aiVendor: 'OPENAI' } }, 'data.model', 'invalid', /^is required with aiVendor/],
      [
        { type: 'DATA_TRANSFORMER', data: { model: 'gpt-9-ultra', aiVendor: 'openai' } },
        'data.model',
        'not_found',
        /^no AI model "gpt-9-ultra" of vendor OPENAI$/,
      ],
      [{ type: 'TOOLS_AI', data: { model: 'gpt-4o', aiVendor: 'ANTHROPIC' } }, 'data.model', 'not_found', /vendor ANTHROPIC/],
      [{ type: 'TOOLS_AI', data: { model: 'gpt-3.5-turbo', aiVendor: 'OPENAI' } }, 'data.model', 'invalid', /is deprecated/],
      [
        { type: 'TRANSCRIPTION', data: { model: 'gpt-4o', aiVendor: 'OPENAI' } },
        'data.model',
        'invalid',
        /^"GPT-4o" is a TEXT model; TRANSCRIPTION nodes need a TRANSCRIPTION model$/,
      ],
    ];
    await expectRefused(a, id, cases);
    expect(await graphOf(a, id)).to.deep.equal({ nodes: [], edges: [] });
  });

  it('accepts fitting models, omitted ones, and leaves the model of a non-AI node unchecked', async () => {
    const id = await newWorkflow(a);
    await addNode(a, id, { type: 'TOOLS_AI', data: { aiModelId: -4 } });
    await addNode(a, id, { type: 'AI_CAPTURE', data: { prompt: 'Extract the order number' } });
    await addNode(a, id, { type: 'TRANSCRIPTION', data: { model: 'whisper-1', aiVendor: 'openai', audioUrl: 'https://x.test/a.mp3' } });
    // gpt-4o is both a TEXT and a FILE_ANALYSIS model: the node's type picks the entry.
    await addNode(a, id, { type: 'FILE_ANALYSIS', data: { model: 'gpt-4o', aiVendor: 'OPENAI' } });
    await addNode(a, id, { type: 'SEND_MESSAGE', alias: 'dynamic', data: { isDynamic: true, prompt: 'Thank them', aiModelId: -1 } });
    await addNode(a, id, { type: 'SEND_MESSAGE', alias: 'static', data: { message: 'Thanks!', aiModelId: -9 } });
    await addNode(a, id, { type: 'CONDITIONAL_ROUTING', data: { useAi: false, aiModelId: -9999 } });
    expect((await graphOf(a, id)).nodes.map((n) => n.type)).to.deep.equal([
      'TOOLS_AI',
      'AI_CAPTURE',
      'TRANSCRIPTION',
      'FILE_ANALYSIS',
      'SEND_MESSAGE',
      'SEND_MESSAGE',
      'CONDITIONAL_ROUTING',
    ]);
  });

  it('refuses an update to a deprecated model and keeps the node as it was', async () => {
    const id = await newWorkflow(a);
    const node = await addNode(a, id, { type: 'DATA_TRANSFORMER', data: { aiModelId: -2, prompt: 'Shorten' } });
    await expectRefused(
      a,
      id,
      [[{ type: 'DATA_TRANSFORMER', data: { aiModelId: -9, prompt: 'Shorten' } }, 'data.aiModelId', 'invalid', /deprecated/]],
      node.nodeId,
    );
    expect((await graphOf(a, id)).nodes[0]!.data).to.deep.equal({ aiModelId: -2, prompt: 'Shorten', type: 'DATA_TRANSFORMER' });
  });
});

describe('workflow nodes: capture targets', () => {
  let a: Account;
  before(async () => {
    a = await newAccount();
  });

  it('resolves captureVariables given by name or id to { id, name, description }, on TOOLS_AI, AI_CAPTURE and TRANSCRIPTION', async () => {
    const id = await newWorkflow(a);
    const summary = await newVariable(a, id, 'summary', 'Call summary');
    const sentiment = await newVariable(a, id, 'sentiment');
    const captureVariables = [{ name: 'summary' }, { id: sentiment }];
    for (const type of ['TOOLS_AI', 'AI_CAPTURE', 'TRANSCRIPTION']) await addNode(a, id, { type, data: { captureVariables } });
    const expected = [
      { id: summary, name: 'summary', description: 'Call summary' },
      { id: sentiment, name: 'sentiment', description: '' },
    ];
    const graph = await graphOf(a, id);
    for (const node of graph.nodes) expect(node.data.captureVariables, node.type).to.deep.equal(expected);

    // Resent as stored after a rename: the id wins, so the capture follows the variable.
    expect((await call('PUT', `/workflows/${id}/variables/${summary}`, { key: a.userKey, body: { name: 'recap' } })).status).to.equal(200);
    const first = graph.nodes[0]!;
    const updated = await call('PUT', `/workflows/${id}/nodes/${first.nodeId}`, { key: a.userKey, body: { type: 'TOOLS_AI', data: first.data } });
    expect(updated.status, updated.text).to.equal(200);
    expect(updated.body.nodes[0].data.captureVariables[0]).to.deep.equal({ id: summary, name: 'recap', description: 'Call summary' });
  });

  it('refuses unknown capture targets naming them, including variables of another workflow or account', async () => {
    const id = await newWorkflow(a);
    await newVariable(a, id, 'summary');
    const otherWorkflowVariable = await newVariable(a, await newWorkflow(a, 'Other'), 'elsewhere');
    const b = await newAccount();
    const foreignVariable = await newVariable(b, await newWorkflow(b), 'summary');
    const cases: RefusedCase[] = [
      [
        { type: 'AI_CAPTURE', data: { captureVariables: [{ name: 'summary' }, { name: 'order_id' }] } },
        'data.captureVariables[1]',
        'not_found',
        /^variable "order_id" does not exist in this workflow$/,
      ],
      [
        { type: 'TOOLS_AI', data: { captureVariables: [{ id: 999999 }] } },
        'data.captureVariables[0]',
        'not_found',
        /^variable 999999 does not exist in this workflow$/,
      ],
      [
        { type: 'TRANSCRIPTION', data: { captureVariables: [{ id: otherWorkflowVariable }] } },
        'data.captureVariables[0]',
        'not_found',
        new RegExp(`variable ${otherWorkflowVariable} `),
      ],
      [{ type: 'TRANSCRIPTION', data: { captureVariables: [{ id: foreignVariable }] } }, 'data.captureVariables[0]', 'not_found', /does not exist/],
      [{ type: 'AI_CAPTURE', data: { captureVariables: [{ label: 'summary' }] } }, 'data.captureVariables[0]', 'invalid', /\{ name \} or \{ id \}/],
      [{ type: 'AI_CAPTURE', data: { captureVariables: 'summary' } }, 'data.captureVariables', 'invalid', /must be an array/],
    ];
    await expectRefused(a, id, cases);
  });

  it('checks API variables: key names a variable, value is a simple path, fullResponse a boolean', async () => {
    const id = await newWorkflow(a);
    await newVariable(a, id, 'order_id');
    await newVariable(a, id, 'raw');
    const api = (variables: unknown) => ({ type: 'API', data: { url: 'https://api.example.test/orders', variables } });
    const cases: RefusedCase[] = [
      [
        api([
          { key: 'order_id', value: 'id' },
          { key: 'ghost', value: 'x' },
        ]),
        'data.variables[1].key',
        'not_found',
        /^variable "ghost" does not exist in this workflow$/,
      ],
      [api([{ value: 'id' }]), 'data.variables[0].key', 'required', /^is required$/],
      [api([{ key: 'order_id', value: 42 }]), 'data.variables[0].value', 'invalid', /^must be a string$/],
      [api([{ key: 'order_id', value: '$.items[*].id' }]), 'data.variables[0].value', 'invalid', /no JSONPath/],
      [api([{ key: 'raw', value: '', fullResponse: 'yes' }]), 'data.variables[0].fullResponse', 'invalid', /^must be a boolean$/],
      [api({ key: 'raw' }), 'data.variables', 'invalid', /must be an array/],
    ];
    await expectRefused(a, id, cases);
    const variables = [
      { key: 'order_id', value: 'data.items[0].id', fullResponse: false },
      { key: 'order_id', value: '[0].id' },
      { key: 'raw', value: '', fullResponse: true },
    ];
    expect((await addNode(a, id, api(variables))).data.variables).to.deep.equal(variables);
  });

  it('leaves the capture field of another node type as sent, unchecked', async () => {
    const id = await newWorkflow(a);
    const onCapture = await addNode(a, id, { type: 'AI_CAPTURE', data: { variables: [{ key: 'ghost', value: 7 }] } });
    expect(onCapture.data.variables).to.deep.equal([{ key: 'ghost', value: 7 }]);
    const onApi = await addNode(a, id, { type: 'API', data: { url: 'https://x.test', captureVariables: [{ name: 'ghost' }] } });
    expect(onApi.data.captureVariables).to.deep.equal([{ name: 'ghost' }]);
    expect((await graphOf(a, id)).nodes).to.have.length(2);
  });
});
