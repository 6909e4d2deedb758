import { expect } from 'chai';
import { nodeModule, nodeTypesOf } from '../../nodes/registry.js';
import { interpolate, interpolateFields, lookup, type Scope } from '../../lib/runtime/interpolate.js';
import { SPEC_WORKFLOW_NODE_TYPES } from '../setup/node-types.js';

/** The interpolated fields a node type's module declares. */
const fieldsOf = (type: string): readonly string[] => nodeModule(type)?.interpolated ?? [];

const LOOP = 'node_11111111-2222-4333-8444-555555555555';
const API = 'node_aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';

const scope: Scope = {
  variables: { email: 'ada@example.test', Email: 'UPPER', count: '3', profile: '{"name":"Ada"}', unset: undefined, nothing: null },
  nodeOutputs: { [API]: { id: 7, tags: ['a'] }, node_num: 42, node_text: 'plain', node_void: undefined },
  aliases: { fetch_user: API, rows: LOOP },
  triggerPayload: { event: 'ROW_CREATED', row: { id: 'r1' } },
  loops: { [LOOP]: { item: { id: 'p1', name: 'Bo' }, index: 2, length: 5 } },
};

describe('interpolate: references', () => {
  it('replaces declared variables by exact, case-sensitive name', () => {
    expect(interpolate('to {email} and {Email}', scope)).to.equal('to ada@example.test and UPPER');
    expect(interpolate('{EMAIL} { email} {email }', scope)).to.equal('{EMAIL} { email} {email }');
  });

  it('leaves unknown references, unset variables and outputs without value as written', () => {
    expect(interpolate('hi {nobody}', scope)).to.equal('hi {nobody}');
    expect(interpolate('{unset}/{nothing}/{node_void}', scope)).to.equal('{unset}/{nothing}/{node_void}');
    expect(interpolate('{constructor}{toString}{__proto__}', scope)).to.equal('{constructor}{toString}{__proto__}');
    expect(interpolate('{} and { } and {', scope)).to.equal('{} and { } and {');
  });

  it('renders node outputs by node id (objects as JSON) and by alias', () => {
    expect(interpolate(`id={${API}}`, scope)).to.equal('id={"id":7,"tags":["a"]}');
    expect(interpolate('{fetch_user}', scope)).to.equal('{"id":7,"tags":["a"]}');
    expect(interpolate('{node_num}+{node_text}', scope)).to.equal('42+plain');
  });

  it('renders {trigger_payload} as JSON when it is an object, as text when it is a string', () => {
    expect(interpolate('got {trigger_payload}', scope)).to.equal('got {"event":"ROW_CREATED","row":{"id":"r1"}}');
    expect(interpolate('{trigger_payload}', { ...scope, triggerPayload: 'raw' })).to.equal('raw');
    expect(interpolate('{trigger_payload}', { variables: {}, nodeOutputs: {} })).to.equal('{trigger_payload}');
  });

  it('renders the loop variables of an active loop, by loop node id or alias', () => {
    expect(interpolate(`{${LOOP}.item}|{${LOOP}.index}|{${LOOP}.length}`, scope)).to.equal('{"id":"p1","name":"Bo"}|2|5');
    expect(interpolate('{rows.index} of {rows.length}', scope)).to.equal('2 of 5');
    expect(interpolate(`{${LOOP}.item}`, { ...scope, loops: { [LOOP]: { item: 'scalar', index: 0, length: 1 } } })).to.equal('scalar');
  });

  it('steps into JSON values with dot and index paths, and has no loop variables outside the loop', () => {
    expect(interpolate(`{${LOOP}.item.id} {rows.item.name}`, scope)).to.equal('p1 Bo');
    expect(
      interpolate('{trigger_payload.customer.email}/{trigger_payload.items[1]}', {
        variables: {},
        nodeOutputs: {},
        triggerPayload: { customer: { email: 'c@x.test' }, items: ['a', 'b'] },
      }),
    ).to.equal('c@x.test/b');
    expect(interpolate('{trigger_payload.customer.phone}', { variables: {}, nodeOutputs: {}, triggerPayload: { customer: {} } })).to.equal(
      '{trigger_payload.customer.phone}',
    );
    expect(interpolate(`{${LOOP}.items}`, scope)).to.equal(`{${LOOP}.items}`);
    expect(interpolate(`{${LOOP}.item}`, { ...scope, loops: {} })).to.equal(`{${LOOP}.item}`);
    expect(interpolate('{email.item}', scope)).to.equal('{email.item}');
  });

  it('replaces every reference in one pass, never re-reading inserted text', () => {
    const s: Scope = { variables: { a: '{b}', b: 'B' }, nodeOutputs: {} };
    expect(interpolate('{a}{b}{a}', s)).to.equal('{b}B{b}');
    expect(interpolate('{{b}}', s)).to.equal('{B}');
  });

  it('lookup answers raw values', () => {
    expect(lookup(scope, `${LOOP}.item`)).to.deep.equal({ found: true, value: { id: 'p1', name: 'Bo' } });
    expect(lookup(scope, 'rows.length')).to.deep.equal({ found: true, value: 5 });
    expect(lookup(scope, 'fetch_user')).to.deep.equal({ found: true, value: { id: 7, tags: ['a'] } });
    expect(lookup(scope, 'nope')).to.deep.equal({ found: false });
  });
});

describe('interpolate: fields of node data', () => {
  const api = {
    type: 'API',
    url: 'https://api.test/users/{email}',
    headers: [
      { name: 'X-{email}', value: 'Bearer {count}' },
      { name: 'Accept', value: 'application/json' },
    ],
    parameters: [{ key: 'id', value: `{${API}}` }],
    body: { query: '{email}', nested: ['{count}', 5, null], '{email}': 'key stays' },
    variables: [{ key: 'email', value: '{email}' }],
    description: 'about {email}',
  };

  it('interpolates exactly the listed fields, deep inside objects and arrays but never in keys', () => {
    const out = interpolateFields(api, fieldsOf('API'), scope);
    expect(out).to.deep.equal({
      type: 'API',
      url: 'https://api.test/users/ada@example.test',
      headers: [
        { name: 'X-{email}', value: 'Bearer 3' },
        { name: 'Accept', value: 'application/json' },
      ],
      parameters: [{ key: 'id', value: { id: 7, tags: ['a'] } }],
      body: { query: 'ada@example.test', nested: ['3', 5, null], '{email}': 'key stays' },
      variables: [{ key: 'email', value: '{email}' }],
      description: 'about {email}',
    });
  });

  it('leaves its input unchanged', () => {
    const copy = JSON.parse(JSON.stringify(api));
    interpolateFields(api, fieldsOf('API'), scope);
    expect(api).to.deep.equal(copy);
  });

  it('skips missing fields and fields of another shape', () => {
    expect(interpolateFields({ type: 'API' }, fieldsOf('API'), scope)).to.deep.equal({ type: 'API' });
    expect(interpolateFields({ headers: 'not-an-array {email}', url: 7 }, fieldsOf('API'), scope)).to.deep.equal({
      headers: 'not-an-array {email}',
      url: 7,
    });
    expect(interpolateFields({ templateVariables: null }, ['templateVariables.body'], scope)).to.deep.equal({ templateVariables: null });
  });

  it('interpolates DYNAMIC_TABLES rowId, search and the values of rowData', () => {
    const data = {
      type: 'DYNAMIC_TABLES',
      action: 'UPDATE',
      tableId: 4,
      rowId: `{${LOOP}.item}`,
      search: '{email}',
      rowData: { Email: '{email}', '{count}': '{count}' },
    };
    expect(interpolateFields(data, fieldsOf('DYNAMIC_TABLES'), scope)).to.deep.equal({
      ...data,
      rowId: { id: 'p1', name: 'Bo' },
      search: 'ada@example.test',
      rowData: { Email: 'ada@example.test', '{count}': '3' },
    });
  });

  it('interpolates SEND_MESSAGING_MESSAGE recipient fields and templateVariables header, body and buttons', () => {
    const data = {
      type: 'SEND_MESSAGING_MESSAGE',
      recipientMode: 'PHONE_NUMBER',
      personName: '{email}',
      phoneNumber: '{count}',
      peopleRowId: `{${LOOP}.index}`,
      template: '{email}',
      templateVariables: { header: '{count}', body: { '1': '{email}', '2': 'fixed' }, buttons: ['{rows.length}'], footer: '{email}' },
    };
    const out = interpolateFields(data, fieldsOf('SEND_MESSAGING_MESSAGE'), scope);
    expect(out).to.deep.equal({
      ...data,
      personName: 'ada@example.test',
      phoneNumber: '3',
      peopleRowId: 2,
      templateVariables: { header: '3', body: { '1': 'ada@example.test', '2': 'fixed' }, buttons: [5], footer: '{email}' },
    });
  });

  it('interpolates CONDITIONAL_ROUTING conditions[].expression only', () => {
    const data = { type: 'CONDITIONAL_ROUTING', conditions: [{ id: '{email}', expression: 'is {email} valid' }] };
    expect(interpolateFields(data, fieldsOf('CONDITIONAL_ROUTING'), scope).conditions).to.deep.equal([
      { id: '{email}', expression: 'is ada@example.test valid' },
    ]);
  });

  it('the node modules declare the SPEC.md fields per node type, and none for the others', () => {
    expect(nodeTypesOf('automation').sort()).to.deep.equal([...SPEC_WORKFLOW_NODE_TYPES].sort());
    const declared = Object.fromEntries(SPEC_WORKFLOW_NODE_TYPES.map((type) => [type, fieldsOf(type)]));
    expect(declared).to.deep.include({
      API: ['url', 'headers[].value', 'parameters[].value', 'body'],
      TOOLS_AI: ['instructions', 'prompt'],
      CONDITIONAL_ROUTING: ['conditions[].expression'],
      AI_CAPTURE: ['prompt', 'instructions'],
      DATA_TRANSFORMER: ['prompt'],
      DYNAMIC_TABLES: ['rowId', 'search', 'rowData'],
      CREATE_RECORD_ACTIVITY: ['rowId', 'content'],
      TRANSCRIPTION: ['audioUrl'],
      SEND_MESSAGING_MESSAGE: [
        'personName',
        'phoneNumber',
        'peopleRowId',
        'templateVariables.header',
        'templateVariables.body',
        'templateVariables.buttons',
      ],
    });
    for (const type of ['TRIGGER', 'SCHEDULED_TRIGGER', 'WEBHOOK', 'ITERATION', 'BREAK', 'AUTOMATION_STATUS', 'SEND_MESSAGE', 'FILE_ANALYSIS']) {
      expect(fieldsOf(type), type).to.deep.equal([]);
    }
    // Flow node types declare theirs too (SPEC.md, interpolable fields in flows); an unknown type has none.
    expect(fieldsOf('SAY_AI')).to.deep.equal(['message', 'prompt']);
    expect(fieldsOf('RESPONSE_AI')).to.deep.equal(['instructions']);
    expect(fieldsOf('NO_SUCH_TYPE')).to.deep.equal([]);
    expect(fieldsOf('toString')).to.deep.equal([]);
  });
});
