import { expect } from 'chai';
import { compileFormula } from '../../db/tables/formulas/formula-compiler.js';
import type { FormulaScope } from '../../db/tables/formulas/formula-scope.js';
import { checkExpressionShape, MAX_FORMULA_DEPTH, parseFieldRef } from '../../db/tables/formulas/formula-nodes.js';
import { fieldModel } from '../setup/field-models.js';

const leaf = { type: 'constant', value: 1 };
const add = (a: unknown) => ({ type: 'operator', operator: 'add', arguments: [a, leaf] });
const chain = (levels: number) => Array.from({ length: levels - 1 }).reduce<unknown>((node) => add(node), leaf);

describe('formula expression shape', () => {
  it('counts depth as SPEC.md does: the root and the leaves count 1', () => {
    expect(MAX_FORMULA_DEPTH).to.equal(5);
    expect(checkExpressionShape(leaf, 'e')).to.deep.equal([]);
    expect(checkExpressionShape(chain(5), 'e')).to.deep.equal([]);
    const [issue] = checkExpressionShape(chain(6), 'e');
    expect(issue).to.include({ code: 'too_deep', path: 'e.arguments[0].arguments[0].arguments[0].arguments[0].arguments[0]' });
  });

  it('counts then/else and padLeft.value but not query filters', () => {
    const deepFilter = { and: [{ or: [{ and: [{ field: 'A', operator: 'isEmpty' }] }] }] };
    const branch = (node: unknown) => ({ type: 'ifElse', filter: deepFilter, then: node, else: leaf });
    const pad = (node: unknown) => ({ type: 'padLeft', value: node, length: 2, char: '0' });
    expect(checkExpressionShape(branch(pad(branch(pad(leaf)))), 'e')).to.deep.equal([]);
    expect(checkExpressionShape(pad(branch(pad(branch(pad(leaf))))), 'e')[0]).to.include({ code: 'too_deep', path: 'e.value.then.value.then.value' });
  });

  it('stops at the limit however deep the expression is', () => {
    let node: unknown = leaf;
    for (let i = 0; i < 100_000; i++) node = { arguments: [node] };
    const issues = checkExpressionShape(add(add(add(add(add(node))))), 'e');
    expect(issues.map((i) => i.code)).to.deep.equal(['too_deep']);
  });

  it('reads field references with and without a relation', () => {
    expect(parseFieldRef('[Amount]')).to.deep.equal(['Amount']);
    expect(parseFieldRef('[Company] . [Name]')).to.deep.equal(['Company', 'Name']);
    expect(parseFieldRef('Amount')).to.deep.equal(['Amount']);
    expect(parseFieldRef('[Amount')).to.equal(null);
  });
});

describe('formula compiler', () => {
  const scope: FormulaScope = {
    tableId: 1,
    tableName: 't',
    fields: [fieldModel(4, 'Amount', 'number'), fieldModel(5, 'Rate', 'number', { format: 'percent' }), fieldModel(6, 'Name', 'string')],
    related: new Map(),
    backRelations: [],
  };

  it('compiles to SQL with every value as a binding, and records the fields read', () => {
    const result = compileFormula(
      {
        expression: {
          type: 'operator',
          operator: 'divide',
          arguments: [
            { type: 'field', field: '[Amount]' },
            { type: 'field', field: '[Rate]' },
          ],
        },
      },
      scope,
      'r',
    );
    expect(result.ok).to.equal(true);
    if (!result.ok) return;
    expect(result.formula).to.deep.include({ sql: '(?? / nullif((?? * 0.01), 0))', bindings: ['r.f_4', 'r.f_5'], type: 'number' });
    expect([...result.formula.references]).to.deep.equal([4, 5]);
    const text = compileFormula({ expression: { type: 'constant', value: "x'); drop table t; --" } }, scope, 'r');
    expect(text.ok && text.formula.bindings).to.deep.equal(["x'); drop table t; --"]);
  });

  it('lists every issue with its node path', () => {
    const result = compileFormula(
      {
        expression: {
          type: 'operator',
          operator: 'add',
          arguments: [
            { type: 'field', field: '[Name]' },
            { type: 'field', field: '[Nope]' },
          ],
        },
      },
      scope,
      'r',
    );
    expect(result.ok).to.equal(false);
    if (result.ok) return;
    expect(result.issues.map((i) => [i.code, i.path])).to.deep.equal([['not_found', 'metadata.expression.arguments[1]']]);
  });
});
