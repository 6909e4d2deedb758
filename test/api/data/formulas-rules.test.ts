/** Formula rules of SPEC.md, each a 400 naming the node and the rule, checked before anything is written. */
import { expect } from 'chai';
import { account, addField, client, createTable, expectError, expectIssue, fieldsOf, ok, physicalColumns, type Client } from './tables.helpers.js';
import { constant, field, formula, op, time, values } from './formulas.helpers.js';

/** `add(add(...add(Amount, 1)..., 1), 1)` with `levels` nodes on the longest path (the leaves count one). */
function nested(levels: number): unknown {
  let node: unknown = field('[Amount]');
  for (let i = 1; i < levels; i++) node = op('add', node, constant(1));
  return node;
}

describe('formula fields: rules', () => {
  let api: Client;
  let general: Client;
  let tableId: number;
  const base = '/tables/ledger';
  before(async () => {
    const a = await account();
    api = client(a.key);
    general = client(a.general);
    tableId = (
      await createTable(api, 'ledger', [
        { name: 'Amount', type: 'number' },
        { name: 'Note', type: 'string' },
        { name: 'When', type: 'date' },
      ])
    ).id;
    await createTable(api, 'ledger_links', [{ name: 'Label', type: 'string' }]);
    const label = (await fieldsOf(api, '/tables/ledger_links'))[0];
    const links = await ok(await api.get('/tables/ledger_links'));
    await addField(api, base, { name: 'Link', type: 'relation', metadata: { relatedTableId: links.id, displayColumn: label.id, mode: 'single' } });
    ok(await api.post(`${base}/rows`, { Amount: 10, Note: 'n' }), 201);
    await addField(api, base, formula('Plus one', op('add', field('[Amount]'), constant(1))));
  });

  it('accepts depth 5 and refuses depth 6 at the node beyond the limit', async () => {
    await addField(api, base, formula('Depth five', nested(5)));
    expect((await values(api, base))[0]!['Depth five']).to.equal(14); // 10 + 1 + 1 + 1 + 1
    const issue = expectIssue(
      await api.post(`${base}/fields`, formula('Depth six', nested(6))),
      'metadata.expression.arguments[0].arguments[0].arguments[0].arguments[0].arguments[0]',
      'too_deep',
    );
    expect(issue.message).to.include('5');
    // then / else and padLeft.value count as levels too; query filters do not.
    const wrap = (node: unknown) => ({ type: 'padLeft', value: node, length: 2, char: '0' });
    const branch = (node: unknown) => ({
      type: 'ifElse',
      filter: { and: [{ or: [{ field: 'Amount', operator: 'gt', value: 1 }] }] },
      then: node,
      else: constant(0),
    });
    await addField(api, base, formula('Wrapped five', branch(wrap(branch(wrap(constant(1)))))));
    expectIssue(
      await api.post(`${base}/fields`, formula('Wrapped six', wrap(branch(wrap(branch(wrap(constant(1)))))))),
      'metadata.expression.value.then.value.then.value',
      'too_deep',
    );
  });

  it('refuses formulas nested past depth 5 with a 400 at the node, and a 2,000-level one before it is even read, saving nothing', async () => {
    const before = await fieldsOf(api, base);
    const columns = await physicalColumns(tableId);
    const nested = (levels: number): unknown => {
      // Five well-formed levels, then the barest nesting (2,000 levels still fit the test server's 64 KiB body limit).
      let deep: unknown = constant(1);
      for (let i = 0; i < levels - 5; i++) deep = { arguments: [deep] };
      for (let i = 0; i < 5; i++) deep = op('add', deep, constant(1));
      return deep;
    };
    // Within the API's nesting limit, the formula rule names the node past depth 5.
    expectIssue(await api.post(`${base}/fields`, formula('Deep', nested(20))), /^metadata\.expression(\.arguments\[0\]){5}$/, 'too_deep');
    // Past it, the request is refused by the input guard before any formula code runs.
    expectIssue(await api.post(`${base}/fields`, formula('Deep', nested(2000))), /^metadata\.expression/, 'too_deep');
    expect((await fieldsOf(api, base)).map((f) => f.name)).to.deep.equal(before.map((f) => f.name));
    expect(await physicalColumns(tableId)).to.deep.equal(columns);
  });

  it('refuses references to formula columns, relation columns alone, and non-numeric arithmetic, at the node', async () => {
    expectIssue(
      await api.post(`${base}/fields`, formula('F', op('add', constant(1), field('[Plus one]')))),
      'metadata.expression.arguments[1]',
      'formula_reference',
    );
    expectIssue(await api.post(`${base}/fields`, formula('F', field('[Link]'))), 'metadata.expression', 'relation_as_field');
    expectIssue(
      await api.post(`${base}/fields`, formula('F', op('add', field('[Amount]'), field('[Note]')))),
      'metadata.expression.arguments[1]',
      'not_numeric',
    );
    for (const operator of ['subtract', 'multiply', 'divide']) {
      expectIssue(
        await api.post(`${base}/fields`, formula('F', op(operator, constant('3'), constant(1)))),
        'metadata.expression.arguments[0]',
        'not_numeric',
      );
    }
    expectIssue(await api.post(`${base}/fields`, formula('F', field('[Nope]'))), 'metadata.expression', 'not_found');
    const filtered = { type: 'ifElse', filter: { field: 'Plus one', operator: 'gt', value: 1 }, then: constant(1), else: constant(2) };
    expectIssue(await api.post(`${base}/fields`, formula('F', filtered)), 'metadata.expression.filter.field', 'formula_reference');
    expectIssue(
      await api.post(`${base}/fields`, formula('F', time('add', 'day', field('[Note]'), constant(1)))),
      'metadata.expression.arguments[0]',
      'not_a_date',
    );
    expectIssue(
      await api.post(`${base}/fields`, formula('F', time('add', 'day', field('[When]'), field('[Note]')))),
      'metadata.expression.arguments[1]',
      'not_numeric',
    );
    expectIssue(
      await api.post(`${base}/fields`, formula('F', field('[Amount]'), { dateConfig: { timezone: 'UTC' } })),
      'metadata.dateConfig',
      'type_mismatch',
    );
    expectIssue(await api.post(`${base}/fields`, formula('F', field('[Amount]', 'lots'))), 'metadata.expression.fallbackValue', 'type_mismatch');
  });

  it('refuses malformed nodes with paths into the expression', async () => {
    const bad = async (expression: unknown, path: string, code: string, extra: Record<string, unknown> = {}) =>
      expectIssue(await api.post(`${base}/fields`, formula('F', expression, extra)), path, code);
    await bad({ type: 'magic' }, 'metadata.expression.type', 'invalid');
    await bad({ type: 'constant', value: 1, extra: true }, 'metadata.expression.extra', 'unknown_field');
    await bad({ type: 'operator', operator: 'add' }, 'metadata.expression.arguments', 'required');
    await bad(op('power', constant(1), constant(2)), 'metadata.expression.operator', 'invalid');
    await bad(op('add', constant(1)), 'metadata.expression.arguments', 'invalid');
    await bad({ type: 'padLeft', value: constant(1), length: 3, char: 'ab' }, 'metadata.expression.char', 'invalid');
    await bad(
      { type: 'timeOperator', operator: 'add', unit: 'week', arguments: [field('[When]'), constant(1)] },
      'metadata.expression.unit',
      'invalid',
    );
    await bad({ type: 'timeOperator', operator: 'diff', unit: 'day', arguments: [field('[When]')] }, 'metadata.expression.arguments', 'invalid');
    await bad(field('[Amount]'), 'metadata.numberConfig.format', 'invalid', { numberConfig: { format: 'roman' } });
    await bad(field('[Amount]'), 'metadata.stringConfig.color', 'unknown_field', { stringConfig: { color: 'red' } });
    await bad(field('[Amount]'), 'metadata.stringConfig', 'invalid', { numberConfig: { format: 'decimal' }, stringConfig: { format: 'text' } });
    expectIssue(
      await api.post('/tables', {
        name: 'ledger_bad',
        columns: [{ name: 'A', type: 'number' }, formula('B', op('add', field('[A]'), constant('x')))],
      }),
      'columns[1].metadata.expression.arguments[1]',
      'not_numeric',
    );
    expectError(await api.get('/tables/ledger_bad'), 404, 'not_found');
  });

  it('changes a formula through PATCH with the same checks, and needs a USER key', async () => {
    const created = await addField(api, base, formula('Tripled', op('multiply', field('[Amount]'), constant(3))));
    expect((await values(api, base))[0]!.Tripled).to.equal(30);
    expectIssue(
      await api.patch(`${base}/fields/${created.id}`, { metadata: { expression: op('multiply', field('[Note]'), constant(3)) } }),
      'metadata.expression.arguments[0]',
      'not_numeric',
    );
    ok(await api.patch(`${base}/fields/${created.id}`, { metadata: { expression: op('multiply', field('[Amount]'), constant(4)) } }));
    expect((await values(api, base))[0]!.Tripled).to.equal(40);
    expectError(await general.post(`${base}/fields`, formula('G', constant(1))), 403, 'forbidden');
  });

  it('refuses to rename, retype or delete a field a formula reads, and allows it once no formula reads it', async () => {
    await createTable(api, 'ledger_deps', [
      { name: 'Price', type: 'number' },
      { name: 'Other', type: 'number' },
    ]);
    const deps = '/tables/ledger_deps';
    const [price] = await fieldsOf(api, deps);
    const uses = await addField(api, deps, formula('Doubled', op('multiply', field('[Price]'), constant(2))));
    expectIssue(await api.patch(`${deps}/fields/${price.id}`, { name: 'Cost' }), 'fieldId', 'formula_dependency');
    expectIssue(await api.patch(`${deps}/fields/${price.id}`, { type: 'string', metadata: { format: 'text' } }), 'fieldId', 'formula_dependency');
    expectError(await api.del(`${deps}/fields/${price.id}`), 409, 'conflict');
    expect((await fieldsOf(api, deps)).map((f) => [f.name, f.type])).to.deep.include(['Price', 'number']);
    // Changes that keep the formula valid go through, and the formula follows them.
    ok(await api.patch(`${deps}/fields/${price.id}`, { metadata: { format: 'percent' } }));
    ok(await api.post(`${deps}/rows`, { Price: 50 }), 201);
    expect((await values(api, deps))[0]!.Doubled).to.equal(1); // 50 % × 2
    // An option a formula filters by (by name) cannot be renamed or deleted from under it; others can.
    const kind = await addField(api, deps, { name: 'Kind', type: 'select', metadata: { mode: 'singleSelect' } });
    const gold = ok(await api.post(`${deps}/fields/${kind.id}/tags`, { name: 'Gold' }), 201);
    const silver = ok(await api.post(`${deps}/fields/${kind.id}/tags`, { name: 'Silver' }), 201);
    const tier = await addField(
      api,
      deps,
      formula('Tier', { type: 'ifElse', filter: { field: 'Kind', operator: 'eq', value: 'Gold' }, then: constant(1), else: constant(0) }),
    );
    expectIssue(await api.patch(`${deps}/tags/${gold.id}`, { name: 'Platinum' }), 'fieldId', 'formula_dependency');
    expectIssue(await api.del(`${deps}/tags/${gold.id}`), 'fieldId', 'formula_dependency');
    ok(await api.patch(`${deps}/tags/${silver.id}`, { name: 'Bronze' }));
    ok(await api.del(`${deps}/tags/${silver.id}`), 204);
    expect(ok(await api.get(`${deps}/fields/${kind.id}/tags`)).agentry.map((o: { name: string }) => o.name)).to.deep.equal(['Gold']);
    ok(await api.del(`${deps}/fields/${tier.id}`), 204);
    ok(await api.del(`${deps}/fields/${uses.id}`), 204);
    ok(await api.patch(`${deps}/fields/${price.id}`, { name: 'Cost' }));
    ok(await api.del(`${deps}/fields/${price.id}`), 204);
  });
});
