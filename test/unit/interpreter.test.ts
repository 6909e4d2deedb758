import { expect } from 'chai';
import { normalize, type Graph, type GraphNode } from '../../lib/graph/graph.js';
import { nodeFactsOf } from '../../nodes/registry.js';
import {
  interpret as interpretPure,
  type ExecuteNode,
  type InterpretOptions,
  type NodeInput,
  type NodeOutcome,
} from '../../workflows/interpreter/interpreter.js';

/** The interpreter with the facts of the registry's node types, as a run's input carries them. */
const interpret = (g: Graph, entry: string, executeNode: ExecuteNode, options: InterpretOptions = {}) =>
  interpretPure(g, entry, executeNode, { nodeFacts: nodeFactsOf(g), ...options });

// ---- graph and fake executeNode helpers -------------------------------------------------------------------------

function node(nodeId: string, type = 'API', data: Record<string, unknown> = {}, alias = `${nodeId}_alias`): GraphNode {
  return { nodeId, alias, type, position: { positionX: 0, positionY: 0 }, data: { type, ...data }, edges: [] };
}

/** Edges as `source:handle>target` (`source>target` for the default handle). */
function graph(nodes: GraphNode[], ...edges: string[]): Graph {
  return normalize({
    nodes,
    edges: edges.map((spec) => {
      const [from, targetEdge] = spec.split('>') as [string, string];
      const [source, handle = 'default'] = from.split(':') as [string, string?];
      return { source, handle, targetEdge };
    }),
  });
}

type Script = NodeOutcome | Error | ((input: NodeInput, call: number) => NodeOutcome | Error);

interface Call extends NodeInput {
  nodeId: string;
}

/** Records every call; answers what `script[nodeId]` says (a function gets the input and the node's call count). */
function fake(script: Record<string, Script> = {}) {
  const calls: Call[] = [];
  const counts = new Map<string, number>();
  const executeNode: ExecuteNode = async (n, input) => {
    calls.push({ nodeId: n.nodeId, ...input });
    const count = (counts.get(n.nodeId) ?? 0) + 1;
    counts.set(n.nodeId, count);
    const entry = script[n.nodeId];
    const outcome = typeof entry === 'function' ? entry(input, count) : entry;
    if (outcome instanceof Error) throw outcome;
    return outcome ?? {};
  };
  return { executeNode, calls, order: () => calls.map((c) => c.nodeId) };
}

const ids = (results: { nodeId: string }[]) => results.map((r) => r.nodeId);

// ---- walking -----------------------------------------------------------------------------------------------------

describe('interpreter: walking the graph', () => {
  it('runs a linear chain by the default handle and records every node in order', async () => {
    const g = graph([node('t', 'TRIGGER'), node('a'), node('b', 'DATA_TRANSFORMER')], 't>a', 'a>b');
    const f = fake({ t: { output: { fired: true } }, a: { output: { id: 1 } }, b: { output: 'done' } });
    const run = await interpret(g, 't', f.executeNode);
    expect(run.successful).to.equal(true);
    expect(run.error).to.equal(undefined);
    expect(run.steps).to.equal(3);
    expect(f.order()).to.deep.equal(['t', 'a', 'b']);
    expect(run.nodeResults).to.deep.equal([
      { nodeId: 't', alias: 't_alias', type: 'TRIGGER', success: true, output: { fired: true } },
      { nodeId: 'a', alias: 'a_alias', type: 'API', success: true, output: { id: 1 } },
      { nodeId: 'b', alias: 'b_alias', type: 'DATA_TRANSFORMER', success: true, output: 'done' },
    ]);
  });

  it('starts at the given entry node, not at the first node', async () => {
    const g = graph([node('a'), node('b'), node('c')], 'a>b', 'b>c');
    const f = fake();
    const run = await interpret(g, 'b', f.executeNode);
    expect(f.order()).to.deep.equal(['b', 'c']);
    expect(run.steps).to.equal(2);
  });

  it('follows the edge of the handle the node chose, and ends a path without an edge for it', async () => {
    const g = graph(
      [node('r', 'CONDITIONAL_ROUTING'), node('yes'), node('no'), node('after')],
      'r:cond_yes>yes',
      'r:cond_no>no',
      'yes>after',
      'r>after',
    );
    const chosen = fake({ r: { handle: 'cond_no' } });
    expect((await interpret(g, 'r', chosen.executeNode)).successful).to.equal(true);
    expect(chosen.order()).to.deep.equal(['r', 'no']);

    const other = fake({ r: { handle: 'cond_yes' } });
    await interpret(g, 'r', other.executeNode);
    expect(other.order()).to.deep.equal(['r', 'yes', 'after']);

    const byDefault = fake({ r: {} });
    await interpret(g, 'r', byDefault.executeNode);
    expect(byDefault.order()).to.deep.equal(['r', 'after']);

    const unknown = fake({ r: { handle: 'cond_maybe' } });
    const run = await interpret(g, 'r', unknown.executeNode);
    expect(unknown.order()).to.deep.equal(['r']);
    expect(run).to.include({ successful: true, steps: 1 });
  });

  it('fails the run at a failing node, records it and executes nothing after it', async () => {
    const g = graph([node('a'), node('b'), node('c')], 'a>b', 'b>c');
    const f = fake({ a: { output: 1 }, b: new Error('HTTP 404 from https://api.test') });
    const run = await interpret(g, 'a', f.executeNode);
    expect(run.successful).to.equal(false);
    expect(run.error).to.deep.equal({ nodeId: 'b', message: 'HTTP 404 from https://api.test' });
    expect(run.steps).to.equal(2);
    expect(f.order()).to.deep.equal(['a', 'b']);
    expect(run.nodeResults).to.deep.equal([
      { nodeId: 'a', alias: 'a_alias', type: 'API', success: true, output: 1 },
      { nodeId: 'b', alias: 'b_alias', type: 'API', success: false, error: 'HTTP 404 from https://api.test' },
    ]);
  });

  it('turns thrown non-errors into messages', async () => {
    const executeNode: ExecuteNode = async () => {
      throw 'plain string failure';
    };
    const run = await interpret(graph([node('a')]), 'a', executeNode);
    expect(run.error).to.deep.equal({ nodeId: 'a', message: 'plain string failure' });
  });

  it('fails the run when the entry node is not in the graph', async () => {
    const f = fake();
    const run = await interpret(graph([node('a')]), 'ghost', f.executeNode);
    expect(run).to.deep.include({ successful: false, steps: 0, nodeResults: [] });
    expect(run.error!.nodeId).to.equal('ghost');
    expect(run.error!.message).to.match(/not in the graph/);
    expect(f.calls).to.have.length(0);
  });

  it('lets errors claimed by options.propagate leave interpret as thrown', async () => {
    class Cancelled extends Error {}
    const f = fake({ b: new Cancelled('cancelled') });
    const g = graph([node('a'), node('b')], 'a>b');
    let caught: unknown;
    try {
      await interpret(g, 'a', f.executeNode, { propagate: (e) => e instanceof Cancelled });
    } catch (e) {
      caught = e;
    }
    expect(caught).to.be.instanceOf(Cancelled);
  });
});

// ---- limits ------------------------------------------------------------------------------------------------------

describe('interpreter: the final node', () => {
  it('says final of a node no edge leaves outside any loop: a successful run ends with it', async () => {
    const g = graph([node('t', 'TRIGGER'), node('a', 'CONDITIONAL_ROUTING'), node('b'), node('c')], 't>a', 'a:yes>b', 'a>c');
    const f = fake({ a: { handle: 'yes' } });
    expect((await interpret(g, 't', f.executeNode)).successful).to.equal(true);
    // `a` ends the run when it takes a handle without an edge, but it has edges: only `b`, which has none, is final.
    expect(f.calls.map((c) => [c.nodeId, !!c.final])).to.deep.equal([
      ['t', false],
      ['a', false],
      ['b', true],
    ]);
  });

  it('never says final inside a loop body, where the walk goes back to the loop node', async () => {
    const g = graph([node('loop', 'ITERATION', { variableName: 'list' }), node('item'), node('done')], 'loop:body>item', 'loop:completed>done');
    const f = fake();
    await interpret(g, 'loop', f.executeNode, { variables: { list: [1, 2] } });
    expect(f.calls.map((c) => [c.nodeId, !!c.final])).to.deep.equal([
      ['item', false],
      ['item', false],
      ['done', true],
    ]);
  });
});

describe('interpreter: step limit', () => {
  it('stops a cycle A→B→A at step 501 with the error and 500 results', async () => {
    const g = graph([node('a'), node('b')], 'a>b', 'b>a');
    const f = fake();
    const run = await interpret(g, 'a', f.executeNode);
    expect(run.successful).to.equal(false);
    expect(run.steps).to.equal(500);
    expect(run.nodeResults).to.have.length(500);
    expect(f.calls).to.have.length(500);
    expect(run.nodeResults.every((r) => r.success)).to.equal(true);
    expect(run.error!.nodeId).to.equal('a');
    expect(run.error!.message).to.match(/exceeded 500 steps/);
  });

  it('allows exactly maxSteps steps and fails the next one before executing it', async () => {
    const g = graph([node('a'), node('b'), node('c'), node('d')], 'a>b', 'b>c', 'c>d');
    const exact = await interpret(graph([node('a'), node('b'), node('c')], 'a>b', 'b>c'), 'a', fake().executeNode, { maxSteps: 3 });
    expect(exact).to.include({ successful: true, steps: 3 });
    const f = fake();
    const over = await interpret(g, 'a', f.executeNode, { maxSteps: 3 });
    expect(over.successful).to.equal(false);
    expect(over.error).to.deep.include({ nodeId: 'd' });
    expect(over.error!.message).to.match(/exceeded 3 steps/);
    expect(f.order()).to.deep.equal(['a', 'b', 'c']);
  });

  it('counts ITERATION, BREAK and every body node as steps', async () => {
    const g = graph([node('loop', 'ITERATION', { variableName: 'list' }), node('x'), node('stop', 'BREAK')], 'loop:body>x', 'x:stop>stop');
    const f = fake({ x: (_input, call) => ({ handle: call === 3 ? 'stop' : 'default' }) });
    const run = await interpret(g, 'loop', f.executeNode, { variables: { list: [1, 2, 3, 4] } });
    expect(run.successful).to.equal(true);
    expect(run.steps).to.equal(1 + 3 + 1);
  });
});

// ---- variables and interpolation ---------------------------------------------------------------------------------

describe('interpreter: variables and interpolation', () => {
  it('interpolates node outputs, declared variables and the trigger payload into exactly the listed fields', async () => {
    const g = graph(
      [
        node('node_fetch', 'API', { url: 'https://api.test/x' }, 'fetch'),
        node('node_send', 'API', {
          url: 'https://api.test/{node_fetch}/{email}',
          headers: [{ name: 'X-{email}', value: '{fetch}' }],
          body: { payload: '{trigger_payload}', unknown: '{missing}' },
          note: '{email}',
        }),
      ],
      'node_fetch>node_send',
    );
    const f = fake({ node_fetch: { output: { id: 9 } } });
    await interpret(g, 'node_fetch', f.executeNode, { variables: { email: 'ada@x.test' }, triggerPayload: { event: 'E' } });
    expect(f.calls[1]!.interpolatedData).to.deep.equal({
      type: 'API',
      url: 'https://api.test/{"id":9}/ada@x.test',
      headers: [{ name: 'X-{email}', value: { id: 9 } }],
      body: { payload: { event: 'E' }, unknown: '{missing}' },
      note: '{email}',
    });
    expect(g.nodes[1]!.data.url).to.equal('https://api.test/{node_fetch}/{email}');
  });

  it('hands the node the scope of the moment: variables, outputs so far, trigger payload', async () => {
    const g = graph([node('a'), node('b')], 'a>b');
    const f = fake({ a: { output: [1, 2] } });
    await interpret(g, 'a', f.executeNode, { variables: { v: 'x' }, triggerPayload: 'p' });
    expect(f.calls[0]!.scope).to.deep.include({ variables: { v: 'x' }, nodeOutputs: {}, triggerPayload: 'p' });
    expect(f.calls[1]!.scope.nodeOutputs).to.deep.equal({ a: [1, 2] });
  });

  it('leaves a reference to a node that has not run as written', async () => {
    const g = graph([node('a', 'API', { url: 'https://x.test/{b}' }), node('b')], 'a>b');
    const f = fake();
    await interpret(g, 'a', f.executeNode);
    expect(f.calls[0]!.interpolatedData.url).to.equal('https://x.test/{b}');
  });

  it('does not interpolate fields of types that list none', async () => {
    const g = graph([node('a', 'FILE_ANALYSIS', { fileUrl: '{v}' }), node('b', 'SEND_MESSAGE', { message: '{v}' })], 'a>b');
    const f = fake();
    await interpret(g, 'a', f.executeNode, { variables: { v: 'value' } });
    expect(f.calls.map((c) => Object.values(c.interpolatedData))).to.deep.equal([
      ['FILE_ANALYSIS', '{v}'],
      ['SEND_MESSAGE', '{v}'],
    ]);
  });

  it('returns the declared variables at the end of the run', async () => {
    const run = await interpret(graph([node('a')]), 'a', fake().executeNode, { variables: { keep: 'me' } });
    expect(run.variables).to.deep.equal({ keep: 'me' });
  });
});

describe('interpreter: captures', () => {
  const response = { data: { user: { id: 42, name: 'Ada', tags: ['a', 'b'] }, items: [{ sku: 'S1' }], empty: null } };

  it('captures API variables by path, whole body with fullResponse or an empty path, and stores strings', async () => {
    const api = node('api', 'API', {
      url: 'https://api.test',
      variables: [
        { key: 'userId', value: 'data.user.id', fullResponse: false },
        { key: 'name', value: '.data.user.name' },
        { key: 'sku', value: 'data.items[0].sku' },
        { key: 'tags', value: 'data.user.tags' },
        { key: 'whole', value: 'data.user.id', fullResponse: true },
        { key: 'wholeByEmptyPath', value: '' },
      ],
    });
    const next = node('next', 'API', { url: 'https://api.test/{userId}/{sku}/{tags}' });
    const f = fake({ api: { output: response } });
    const run = await interpret(graph([api, next], 'api>next'), 'api', f.executeNode);
    expect(run.variables).to.deep.equal({
      userId: '42',
      name: 'Ada',
      sku: 'S1',
      tags: '["a","b"]',
      whole: JSON.stringify(response),
      wholeByEmptyPath: JSON.stringify(response),
    });
    expect(f.calls[1]!.interpolatedData.url).to.equal('https://api.test/42/S1/["a","b"]');
  });

  it('leaves a variable unset (or as it was) when a step is missing or null, without failing', async () => {
    const api = node('api', 'API', {
      variables: [
        { key: 'missing', value: 'data.nope.id' },
        { key: 'nullStep', value: 'data.empty.id' },
        { key: 'nullValue', value: 'data.empty' },
        { key: 'jsonPath', value: '$.data.user.id' },
        { key: 'kept', value: 'data.nothing' },
      ],
    });
    const run = await interpret(graph([api]), 'api', fake({ api: { output: response } }).executeNode, { variables: { kept: 'before' } });
    expect(run.successful).to.equal(true);
    expect(run.variables).to.deep.equal({ kept: 'before' });
  });

  it('has no paths into a text body, and parses a body still held as a JSON string', async () => {
    const vars = [
      { key: 'id', value: 'id' },
      { key: 'all', fullResponse: true },
    ];
    const text = await interpret(graph([node('a', 'API', { variables: vars })]), 'a', fake({ a: { output: 'OK' } }).executeNode);
    expect(text.variables).to.deep.equal({ all: 'OK' });
    const json = await interpret(graph([node('a', 'API', { variables: vars })]), 'a', fake({ a: { output: '{"id":5}' } }).executeNode);
    expect(json.variables).to.deep.equal({ id: '5', all: '{"id":5}' });
  });

  it('captures AI outputs named by captureVariables only, and ignores the capture field of other types', async () => {
    const ai = node('ai', 'AI_CAPTURE', {
      captureVariables: [
        { id: 1, name: 'city', description: '' },
        { id: 2, name: 'order', description: '' },
        { id: 3, name: 'absent', description: '' },
      ],
      variables: [{ key: 'wrongField', value: '' }],
    });
    const api = node('api', 'API', { captureVariables: [{ name: 'city' }] });
    const f = fake({
      ai: { output: { captures: { city: 'Paris', order: { id: 3 }, extra: 'not a target', absent: null } } },
      api: { output: { captures: { city: 'Lyon' } } },
    });
    const run = await interpret(graph([ai, api], 'ai>api'), 'ai', f.executeNode);
    expect(run.variables).to.deep.equal({ city: 'Paris', order: '{"id":3}' });
  });
});

// ---- loops -------------------------------------------------------------------------------------------------------

describe('interpreter: ITERATION', () => {
  const loopGraph = (data: Record<string, unknown>, ...extra: string[]) =>
    graph(
      [
        node('loop', 'ITERATION', { variableName: 'list', ...data }, 'rows'),
        node('item', 'API', { url: 'https://x.test/{loop.item}/{rows.index}/{loop.length}' }),
        node('item2'),
        node('done'),
        node('none'),
      ],
      'loop:body>item',
      'item>item2',
      'loop:completed>done',
      'loop:empty>none',
      ...extra,
    );

  it('runs the body path once per item with loop variables, then follows completed', async () => {
    const f = fake();
    const run = await interpret(loopGraph({}), 'loop', f.executeNode, { variables: { list: ['a', { id: 1 }] } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['item', 'item2', 'item', 'item2', 'done']);
    expect(f.calls.filter((c) => c.nodeId === 'item').map((c) => c.interpolatedData.url)).to.deep.equal([
      'https://x.test/a/0/2',
      'https://x.test/{"id":1}/1/2',
    ]);
    expect(f.calls[0]!.scope.loops).to.deep.equal({ loop: { item: 'a', index: 0, length: 2 } });
    expect(f.calls[4]!.scope.loops).to.deep.equal({});
    expect(ids(run.nodeResults)).to.deep.equal(['loop', 'item', 'item2', 'item', 'item2', 'done']);
    expect(run.nodeResults[0]).to.deep.equal({
      nodeId: 'loop',
      alias: 'rows',
      type: 'ITERATION',
      success: true,
      output: { length: 2, iterations: 2, failed: [], broken: false },
    });
    expect(run.steps).to.equal(6);
  });

  it('does not call executeNode for ITERATION or BREAK', async () => {
    const f = fake();
    await interpret(loopGraph({}), 'loop', f.executeNode, { variables: { list: [1] } });
    expect(f.order()).to.not.include('loop');
  });

  it('follows empty (not completed) for an empty list, an unset variable or null', async () => {
    for (const variables of [{ list: [] }, {}, { list: null }, { list: '[]' }, { list: '' }]) {
      const f = fake();
      const run = await interpret(loopGraph({}), 'loop', f.executeNode, { variables });
      expect(run.successful, JSON.stringify(variables)).to.equal(true);
      expect(f.order(), JSON.stringify(variables)).to.deep.equal(['none']);
      expect(run.nodeResults[0]!.output).to.deep.equal({ length: 0, iterations: 0, failed: [], broken: false });
    }
  });

  it('ends the run on an empty list without an empty edge', async () => {
    const g = graph([node('loop', 'ITERATION', { variableName: 'list' }), node('done')], 'loop:completed>done');
    const f = fake();
    const run = await interpret(g, 'loop', f.executeNode, { variables: { list: [] } });
    expect(run).to.include({ successful: true, steps: 1 });
    expect(f.calls).to.have.length(0);
  });

  it('loops over a JSON string, a node output by id or alias, and a variablePath inside it', async () => {
    const fromJson = fake();
    await interpret(loopGraph({}), 'loop', fromJson.executeNode, { variables: { list: '["x","y","z"]' } });
    expect(fromJson.order().filter((id) => id === 'item')).to.have.length(3);

    const g = (variableName: string, variablePath?: string) =>
      graph(
        [
          node('src', 'DYNAMIC_TABLES', {}, 'search'),
          node('loop', 'ITERATION', { variableName, variablePath }),
          node('item', 'API', { url: '{loop.item}' }),
        ],
        'src>loop',
        'loop:body>item',
      );
    const rows = [{ id: 'r1' }, { id: 'r2' }];
    for (const [name, path, output] of [
      ['src', undefined, rows],
      ['search', '', rows],
      ['src', 'data.rows', { data: { rows } }],
      ['search', '.data.rows', JSON.stringify({ data: { rows } })],
    ] as const) {
      const f = fake({ src: { output } });
      const run = await interpret(g(name, path), 'src', f.executeNode);
      expect(run.successful, `${name} ${path}`).to.equal(true);
      expect(f.calls.filter((c) => c.nodeId === 'item').map((c) => c.interpolatedData.url)).to.deep.equal(rows);
    }
  });

  it('follows empty when the variablePath does not resolve', async () => {
    const f = fake();
    const run = await interpret(loopGraph({ variablePath: 'data.rows' }), 'loop', f.executeNode, { variables: { list: { data: {} } } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['none']);
  });

  it('fails the run when the value is not an array', async () => {
    for (const list of [{ a: 1 }, 5, 'text']) {
      const f = fake();
      const run = await interpret(loopGraph({}), 'loop', f.executeNode, { variables: { list } });
      expect(run.successful).to.equal(false);
      expect(run.error!.nodeId).to.equal('loop');
      expect(run.error!.message).to.match(/needs an array/);
      expect(run.nodeResults).to.deep.equal([{ nodeId: 'loop', alias: 'rows', type: 'ITERATION', success: false, error: run.error!.message }]);
      expect(f.calls).to.have.length(0);
    }
  });

  it('fails the run before the body starts when the list has more than 50 items, and allows 50', async () => {
    const f = fake();
    const run = await interpret(loopGraph({ continueOnError: true }), 'loop', f.executeNode, {
      variables: { list: Array.from({ length: 51 }, (_, i) => i) },
    });
    expect(run.successful).to.equal(false);
    expect(run.error!.nodeId).to.equal('loop');
    expect(run.error!.message).to.match(/51 items; at most 50/);
    expect(f.calls).to.have.length(0);
    expect(run.steps).to.equal(1);
    expect(run.nodeResults).to.have.length(1);
    expect(run.nodeResults[0]).to.include({ success: false });

    const ok = fake();
    const fifty = await interpret(loopGraph({}), 'loop', ok.executeNode, { variables: { list: Array.from({ length: 50 }, (_, i) => i) } });
    expect(fifty.successful).to.equal(true);
    expect(ok.calls).to.have.length(101);

    const custom = await interpret(loopGraph({}), 'loop', fake().executeNode, { variables: { list: [1, 2, 3] }, maxLoopItems: 2 });
    expect(custom.error!.message).to.match(/3 items; at most 2/);
  });

  it('with continueOnError true records a failed item, skips the rest of its path and goes on', async () => {
    const f = fake({ item: (input) => (input.scope.loops!.loop!.index === 1 ? new Error('bad item') : {}) });
    const run = await interpret(loopGraph({ continueOnError: true }), 'loop', f.executeNode, { variables: { list: ['a', 'b', 'c'] } });
    expect(run.successful).to.equal(true);
    expect(run.error).to.equal(undefined);
    expect(f.order()).to.deep.equal(['item', 'item2', 'item', 'item', 'item2', 'done']);
    expect(run.nodeResults.filter((r) => !r.success)).to.deep.equal([
      { nodeId: 'item', alias: 'item_alias', type: 'API', success: false, error: 'bad item' },
    ]);
    expect(run.nodeResults[0]!.output).to.deep.equal({
      length: 3,
      iterations: 3,
      failed: [{ index: 1, nodeId: 'item', message: 'bad item' }],
      broken: false,
    });
  });

  it('with continueOnError false (or unset) fails the run at the failing node', async () => {
    for (const data of [{ continueOnError: false }, {}]) {
      const f = fake({ item2: (input) => (input.scope.loops!.loop!.index === 1 ? new Error('boom') : {}) });
      const run = await interpret(loopGraph(data), 'loop', f.executeNode, { variables: { list: ['a', 'b', 'c'] } });
      expect(run.successful).to.equal(false);
      expect(run.error).to.deep.equal({ nodeId: 'item2', message: 'boom' });
      expect(f.order()).to.deep.equal(['item', 'item2', 'item', 'item2']);
      expect(run.nodeResults.at(-1)).to.deep.include({ nodeId: 'item2', success: false, error: 'boom' });
      expect(run.nodeResults[0]!.output).to.deep.equal({ length: 3, iterations: 2, failed: [], broken: false });
    }
  });

  it('does not let continueOnError swallow the step limit', async () => {
    const f = fake();
    const run = await interpret(loopGraph({ continueOnError: true }), 'loop', f.executeNode, { variables: { list: [1, 2, 3] }, maxSteps: 4 });
    expect(run.successful).to.equal(false);
    expect(run.error!.message).to.match(/exceeded 4 steps/);
    expect(f.order()).to.deep.equal(['item', 'item2', 'item']);
  });

  it('ends an item when the body leads back to the loop node', async () => {
    const f = fake();
    const run = await interpret(loopGraph({}, 'item2>loop'), 'loop', f.executeNode, { variables: { list: [1, 2] } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['item', 'item2', 'item', 'item2', 'done']);
  });

  it('completes without running anything when there is no body edge', async () => {
    const g = graph([node('loop', 'ITERATION', { variableName: 'list' }), node('done')], 'loop:completed>done');
    const f = fake();
    const run = await interpret(g, 'loop', f.executeNode, { variables: { list: [1, 2] } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['done']);
  });
});

describe('interpreter: BREAK and nested loops', () => {
  it('BREAK inside the body stops the loop and continues on completed', async () => {
    const g = graph(
      [node('loop', 'ITERATION', { variableName: 'list' }), node('check', 'CONDITIONAL_ROUTING'), node('work'), node('stop', 'BREAK'), node('done')],
      'loop:body>check',
      'check:found>stop',
      'check>work',
      'loop:completed>done',
    );
    const f = fake({ check: (input) => ({ handle: input.scope.loops!.loop!.item === 'needle' ? 'found' : 'default' }) });
    const run = await interpret(g, 'loop', f.executeNode, { variables: { list: ['hay', 'needle', 'hay2'] } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['check', 'work', 'check', 'done']);
    expect(ids(run.nodeResults)).to.deep.equal(['loop', 'check', 'work', 'check', 'stop', 'done']);
    expect(run.nodeResults[4]).to.deep.equal({ nodeId: 'stop', alias: 'stop_alias', type: 'BREAK', success: true });
    expect(run.nodeResults[0]!.output).to.deep.equal({ length: 3, iterations: 2, failed: [], broken: true });
  });

  it('BREAK outside a loop fails the run', async () => {
    const g = graph([node('a'), node('stop', 'BREAK'), node('after')], 'a>stop', 'stop>after');
    const f = fake();
    const run = await interpret(g, 'a', f.executeNode);
    expect(run.successful).to.equal(false);
    expect(run.error!.nodeId).to.equal('stop');
    expect(run.error!.message).to.match(/outside a loop/);
    expect(run.nodeResults.at(-1)).to.deep.include({ nodeId: 'stop', type: 'BREAK', success: false });
    expect(f.order()).to.deep.equal(['a']);
  });

  it('BREAK on the completed path of a top-level loop is outside a loop', async () => {
    const g = graph([node('loop', 'ITERATION', { variableName: 'list' }), node('x'), node('stop', 'BREAK')], 'loop:body>x', 'loop:completed>stop');
    const run = await interpret(g, 'loop', fake().executeNode, { variables: { list: [1] } });
    expect(run.successful).to.equal(false);
    expect(run.error!.nodeId).to.equal('stop');
  });

  const nested = (innerBody: string[], innerData: Record<string, unknown> = {}) =>
    graph(
      [
        node('outer', 'ITERATION', { variableName: 'letters' }),
        node('inner', 'ITERATION', { variableName: 'numbers', ...innerData }, 'in'),
        node('work', 'API', { url: '{outer.item}{inner.item}:{outer.index}{in.index}' }),
        node('check', 'CONDITIONAL_ROUTING'),
        node('stop', 'BREAK'),
        node('afterInner'),
        node('done'),
      ],
      'outer:body>inner',
      'inner:completed>afterInner',
      'outer:completed>done',
      ...innerBody,
    );

  it('runs nested loops with the variables of both in scope', async () => {
    const f = fake();
    const run = await interpret(nested(['inner:body>work']), 'outer', f.executeNode, { variables: { letters: ['a', 'b'], numbers: [1, 2, 3] } });
    expect(run.successful).to.equal(true);
    expect(f.calls.filter((c) => c.nodeId === 'work').map((c) => c.interpolatedData.url)).to.deep.equal([
      'a1:00',
      'a2:01',
      'a3:02',
      'b1:10',
      'b2:11',
      'b3:12',
    ]);
    expect(f.order().filter((id) => id !== 'work')).to.deep.equal(['afterInner', 'afterInner', 'done']);
    expect(run.steps).to.equal(1 + 2 * (1 + 3 + 1) + 1);
  });

  it('BREAK exits the innermost loop only', async () => {
    const f = fake({ check: (input) => ({ handle: input.scope.loops!.inner!.index === 1 ? 'stop' : 'default' }) });
    const g = nested(['inner:body>check', 'check:stop>stop', 'check>work']);
    const run = await interpret(g, 'outer', f.executeNode, { variables: { letters: ['a', 'b'], numbers: [1, 2, 3] } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['check', 'work', 'check', 'afterInner', 'check', 'work', 'check', 'afterInner', 'done']);
    const outer = run.nodeResults.find((r) => r.nodeId === 'outer')!;
    expect(outer.output).to.deep.include({ iterations: 2, broken: false });
  });

  it('BREAK after an inner loop completes exits the enclosing loop', async () => {
    const g = graph(
      [
        node('outer', 'ITERATION', { variableName: 'letters' }),
        node('inner', 'ITERATION', { variableName: 'numbers' }),
        node('work'),
        node('stop', 'BREAK'),
        node('done'),
      ],
      'outer:body>inner',
      'inner:body>work',
      'inner:completed>stop',
      'outer:completed>done',
    );
    const f = fake();
    const run = await interpret(g, 'outer', f.executeNode, { variables: { letters: ['a', 'b'], numbers: [1, 2] } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['work', 'work', 'done']);
  });

  it('loops over the current item of the enclosing loop', async () => {
    const g = graph(
      [
        node('outer', 'ITERATION', { variableName: 'matrix' }),
        node('inner', 'ITERATION', { variableName: 'outer.item' }),
        node('cell', 'API', { url: '{inner.item}' }),
      ],
      'outer:body>inner',
      'inner:body>cell',
    );
    const f = fake();
    await interpret(g, 'outer', f.executeNode, { variables: { matrix: [[1, 2], [3]] } });
    expect(f.calls.map((c) => c.interpolatedData.url)).to.deep.equal([1, 2, 3]);
  });

  it('an inner failure skips only the inner item with inner continueOnError', async () => {
    const f = fake({ work: (input) => (input.scope.loops!.inner!.item === 2 ? new Error('no 2') : {}) });
    const run = await interpret(nested(['inner:body>work'], { continueOnError: true }), 'outer', f.executeNode, {
      variables: { letters: ['a', 'b'], numbers: [1, 2, 3] },
    });
    expect(run.successful).to.equal(true);
    expect(run.nodeResults.filter((r) => !r.success)).to.have.length(2);
    expect(f.order().filter((id) => id === 'afterInner')).to.have.length(2);
  });

  it('an inner failure without continueOnError fails the outer item, skipped by outer continueOnError', async () => {
    const g = graph(
      [
        node('outer', 'ITERATION', { variableName: 'letters', continueOnError: true }),
        node('inner', 'ITERATION', { variableName: 'numbers' }),
        node('work'),
        node('afterInner'),
        node('done'),
      ],
      'outer:body>inner',
      'inner:body>work',
      'inner:completed>afterInner',
      'outer:completed>done',
    );
    const f = fake({ work: (input) => (input.scope.loops!.outer!.item === 'a' && input.scope.loops!.inner!.index === 0 ? new Error('bad a') : {}) });
    const run = await interpret(g, 'outer', f.executeNode, { variables: { letters: ['a', 'b'], numbers: [1, 2] } });
    expect(run.successful).to.equal(true);
    expect(f.order()).to.deep.equal(['work', 'work', 'work', 'afterInner', 'done']);
    expect(run.nodeResults.find((r) => r.nodeId === 'outer')!.output).to.deep.equal({
      length: 2,
      iterations: 2,
      failed: [{ index: 0, nodeId: 'work', message: 'bad a' }],
      broken: false,
    });
  });

  it('an inner loop over 50 items fails the run even inside an outer loop with continueOnError', async () => {
    const g = graph(
      [
        node('outer', 'ITERATION', { variableName: 'letters', continueOnError: true }),
        node('inner', 'ITERATION', { variableName: 'numbers' }),
        node('work'),
      ],
      'outer:body>inner',
      'inner:body>work',
    );
    const f = fake();
    const run = await interpret(g, 'outer', f.executeNode, { variables: { letters: ['a', 'b'], numbers: Array.from({ length: 60 }, (_, i) => i) } });
    expect(run.successful).to.equal(false);
    expect(run.error!.nodeId).to.equal('inner');
    expect(f.calls).to.have.length(0);
  });

  it('fails the run when an inner body leads back into the enclosing loop', async () => {
    const g = graph(
      [
        node('outer', 'ITERATION', { variableName: 'letters', continueOnError: true }),
        node('inner', 'ITERATION', { variableName: 'numbers' }),
        node('work'),
      ],
      'outer:body>inner',
      'inner:body>work',
      'work>outer',
    );
    const run = await interpret(g, 'outer', fake().executeNode, { variables: { letters: ['a'], numbers: [1] } });
    expect(run.successful).to.equal(false);
    expect(run.error!.message).to.match(/leads back into the enclosing loop outer/);
  });
});

describe('interpreter: run bookkeeping', () => {
  it('stamps node results with the given clock, keeps AI credits, and reports each result as it is recorded', async () => {
    const g = graph([node('t', 'TRIGGER'), node('a', 'AI_CAPTURE'), node('b')], 't>a', 'a>b');
    const f = fake({ a: { output: 'summary', aiCredits: 2.5 }, b: new Error('boom') });
    let clock = Date.UTC(2026, 10, 21, 9, 0, 0);
    const seen: string[] = [];
    const run = await interpret(g, 't', f.executeNode, { now: () => (clock += 1000), onRecord: (r) => seen.push(`${r.nodeId}:${r.success}`) });
    expect(run.nodeResults.map((r) => [r.nodeId, r.createdAt, r.aiCredits])).to.deep.equal([
      ['t', '2026-11-21T09:00:01.000Z', undefined],
      ['a', '2026-11-21T09:00:02.000Z', 2.5],
      ['b', '2026-11-21T09:00:03.000Z', undefined],
    ]);
    expect(seen).to.deep.equal(['t:true', 'a:true', 'b:false']);
    // Without a clock, results carry no timestamp (the pure default).
    expect((await interpret(g, 't', fake().executeNode)).nodeResults.every((r) => r.createdAt === undefined)).to.equal(true);
  });
});
