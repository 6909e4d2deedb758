import { expect } from 'chai';
import { compileSchema } from '../../api/validation.js';
import { BadRequestError, type Issue } from '../../lib/errors.js';
import { cursorFromRow, decodeCursor, encodeCursor, keysetCondition, sortKeySelect } from '../../db/tables/query/cursor.js';
import { compileFilter, MAX_FILTER_CONDITIONS, OPERATORS_BY_TYPE } from '../../db/tables/query/filter.js';
import { QueryFilterSchema, QuerySortSchema } from '../../db/tables/query/filter.schema.js';
import { compileSearch, searchQueryText } from '../../db/tables/query/search.js';
import { compileSort, orderByClause } from '../../db/tables/query/sort.js';
import type { FieldModel } from '../../db/tables/types.js';
import { fieldModel } from '../setup/field-models.js';

const field = fieldModel;

const options = [
  { id: 11, name: 'Open', color: null, order: 2 },
  { id: 12, name: 'Won', color: null, order: 0 },
  { id: 13, name: 'Lost', color: null, order: 1 },
];

const FIELDS: FieldModel[] = [
  field(1, 'Name', 'string', { format: 'text' }),
  field(2, 'Amount', 'number', { format: 'decimal' }),
  field(3, 'Active', 'boolean'),
  field(4, 'Due', 'date', { timezone: 'Europe/Paris' }),
  field(5, 'Birthday', 'dateOnly'),
  field(6, 'Status', 'select', { mode: 'singleSelect' }, { options }),
  field(7, 'Tags', 'select', { mode: 'multiSelect' }, { options }),
  field(8, 'Company', 'relation', { mode: 'single', relatedTableId: 2 }),
  field(9, 'Contacts', 'relation', { mode: 'multi', relatedTableId: 3 }, { column: null, linkTable: 'links_9' }),
  field(10, 'Owner', 'entityRelation', { entityModel: 'User', mode: 'single' }),
  field(11, 'Chats', 'entityRelation', { entityModel: 'Conversation', mode: 'multi' }),
  field(12, 'Score', 'formula', { expression: {} }),
  field(13, 'Files', 'file'),
];

const ID_A = 'aaaaaaaaaaaaaaaaaaaaaaaa';
const ID_B = 'bbbbbbbbbbbbbbbbbbbbbbbb';

function compile(filter: unknown, path?: string) {
  return compileFilter(filter, FIELDS, { alias: 'r', ...(path && { path }) });
}

function issuesOf(run: () => unknown): { error: BadRequestError; issues: Issue[] } {
  try {
    run();
  } catch (error) {
    expect(error).to.be.instanceOf(BadRequestError);
    const e = error as BadRequestError;
    expect(e.status).to.equal(400);
    return { error: e, issues: (e.details?.issues ?? []) as Issue[] };
  }
  throw new Error('expected a BadRequestError');
}

describe('query filter compiler', () => {
  describe('SQL and bindings', () => {
    it('compiles an absent or empty filter to true', () => {
      for (const filter of [undefined, null, {}]) expect(compile(filter)).to.deep.equal({ sql: 'true', bindings: [] });
    });

    it('escapes LIKE wildcards and matches case-insensitively', () => {
      expect(compile({ field: 'name', operator: 'contains', value: '50%_off\\' })).to.deep.equal({
        sql: '?? ilike ?',
        bindings: ['r.f_1', '%50\\%\\_off\\\\%'],
      });
      expect(compile({ field: 1, operator: 'startsWith', value: 'Ac' }).bindings).to.deep.equal(['r.f_1', 'Ac%']);
      expect(compile({ field: 'Name', operator: 'notContains', value: 'x' })).to.deep.equal({
        sql: '(?? is null or ?? not ilike ?)',
        bindings: ['r.f_1', 'r.f_1', '%x%'],
      });
    });

    it('nests groups and keeps values out of the SQL text', () => {
      const injection = "'); drop table x; --";
      const result = compile({
        and: [
          { field: 'Name', operator: 'eq', value: injection },
          {
            or: [
              { field: 'Amount', operator: 'between', value: [1, '2.50'] },
              { field: 'Name', operator: 'isEmpty' },
            ],
          },
        ],
      });
      expect(result.sql).to.equal("(?? = ?::text and (?? between ?::numeric and ?::numeric or (?? is null or ?? = '')))");
      expect(result.bindings).to.deep.equal(['r.f_1', injection, 'r.f_2', 1, '2.50', 'r.f_1', 'r.f_1']);
      expect(result.sql).not.to.include('drop');
    });

    it('maps option names to ids, case-insensitively', () => {
      expect(compile({ field: 'Status', operator: 'in', value: ['open', 'Won'] })).to.deep.equal({
        sql: '?? = any(?::integer[])',
        bindings: ['r.f_6', [11, 12]],
      });
      expect(compile({ field: 'Tags', operator: 'hasAll', value: ['Lost'] })).to.deep.equal({ sql: '?? @> ?::integer[]', bindings: ['r.f_7', [13]] });
      expect(compile({ field: 'Status', operator: 'neq', value: 'Lost' })).to.deep.equal({
        sql: '?? is distinct from ?::integer',
        bindings: ['r.f_6', 13],
      });
    });

    it('filters multi relations through the link table', () => {
      expect(compile({ field: 'Contacts', operator: 'hasAny', value: [ID_A.toUpperCase(), ID_B] })).to.deep.equal({
        sql: 'exists (select 1 from ?? as ?? where ?? = ?? and ?? = any(?::bpchar[]))',
        bindings: ['data.links_9', 'r_l0', 'r_l0.source_id', 'r.id', 'r_l0.target_id', [ID_A, ID_B]],
      });
      expect(compile({ field: 'Contacts', operator: 'isEmpty' }).sql).to.equal('not exists (select 1 from ?? as ?? where ?? = ??)');
    });

    it('reads a bare date as the whole day in the field time zone, a date-time as an instant', () => {
      expect(compile({ field: 'Due', operator: 'eq', value: '2024-07-01' })).to.deep.equal({
        sql: '(?? >= ?::timestamptz and ?? < ?::timestamptz)',
        bindings: ['r.f_4', '2024-06-30T22:00:00.000Z', 'r.f_4', '2024-07-01T22:00:00.000Z'],
      });
      expect(compile({ field: 'createdAt', operator: 'onOrBefore', value: '2024-01-31' })).to.deep.equal({
        sql: '?? < ?::timestamptz',
        bindings: ['r.created_at', '2024-02-01T00:00:00.000Z'],
      });
      expect(compile({ field: 'updatedAt', operator: 'after', value: '2024-01-31T10:00:00+01:00' })).to.deep.equal({
        sql: '?? > ?::timestamptz',
        bindings: ['r.updated_at', '2024-01-31T10:00:00+01:00'],
      });
    });

    it('treats unticked booleans as false and empty lists as sets', () => {
      expect(compile({ field: 'Active', operator: 'eq', value: false })).to.deep.equal({ sql: '?? is not true', bindings: ['r.f_3'] });
      expect(compile({ field: 'Name', operator: 'in', value: [] }).sql).to.equal('false');
      expect(compile({ field: 'Name', operator: 'notIn', value: [] }).sql).to.equal('true');
      expect(compile({ field: 'Tags', operator: 'hasNone', value: [] }).sql).to.equal('true');
    });

    it('uses the system columns and a custom alias', () => {
      expect(compileFilter({ field: 'id', operator: 'in', value: [ID_A] }, FIELDS, { alias: 't2' })).to.deep.equal({
        sql: '?? = any(?::bpchar[])',
        bindings: ['t2.id', [ID_A]],
      });
      expect(compile({ field: 'recordTypeId', operator: 'notIn', value: [1, 2] }).sql).to.equal('(?? is null or not (?? = any(?::integer[])))');
    });

    it('publishes an operator table covering every field type', () => {
      expect(OPERATORS_BY_TYPE.string).to.include.members(['eq', 'contains', 'notContains', 'in', 'isEmpty']);
      expect(OPERATORS_BY_TYPE['select:multi']).to.deep.equal(['hasAny', 'hasAll', 'hasNone', 'isEmpty', 'isNotEmpty']);
      expect(OPERATORS_BY_TYPE.formula).to.deep.equal([]);
    });
  });

  describe('errors', () => {
    it('names an unknown field at its path', () => {
      const { error, issues } = issuesOf(() =>
        compile({ and: [{ field: 'Name', operator: 'eq', value: 'x' }, { or: [{ field: 'Nope', operator: 'eq', value: 1 }] }] }),
      );
      expect(issues).to.deep.equal([{ code: 'not_found', path: 'filter.and[1].or[0].field', message: 'names no field of this table ("Nope")' }]);
      expect(error.message).to.equal('Invalid filter: filter.and[1].or[0].field names no field of this table ("Nope")');
    });

    it('refuses an operator the field type does not have, listing the valid ones', () => {
      const { issues } = issuesOf(() => compile({ and: [{ field: 'Name', operator: 'gt', value: 'x' }] }));
      expect(issues[0]!.code).to.equal('invalid_operator');
      expect(issues[0]!.path).to.equal('filter.and[0].operator');
      expect(issues[0]!.message).to.match(/"gt" is not an operator for string field "Name"; use one of eq, neq, contains/);
    });

    it('refuses bad values with the path of the bad item', () => {
      expect(issuesOf(() => compile({ field: 'Amount', operator: 'gt', value: 'ten' })).issues[0]).to.deep.equal({
        code: 'invalid_value',
        path: 'filter.value',
        message: 'must be a number',
      });
      expect(issuesOf(() => compile({ field: 'Amount', operator: 'in', value: [1, 'x'] })).issues[0]!.path).to.equal('filter.value[1]');
      expect(issuesOf(() => compile({ field: 'Due', operator: 'before', value: '2024-02-30' })).issues[0]!.message).to.match(/ISO 8601/);
      expect(issuesOf(() => compile({ field: 'Birthday', operator: 'eq', value: '2024-01-01T00:00:00Z' })).issues[0]!.message).to.equal(
        'must be a date YYYY-MM-DD',
      );
      expect(issuesOf(() => compile({ field: 'Company', operator: 'eq', value: 'xyz' })).issues[0]!.message).to.match(/row id/);
      expect(issuesOf(() => compile({ field: 'Name', operator: 'eq', value: null })).issues[0]!.message).to.match(/isEmpty/);
      expect(issuesOf(() => compile({ field: 'Name', operator: 'eq' })).issues[0]).to.deep.include({ code: 'required', path: 'filter.value' });
      expect(issuesOf(() => compile({ field: 'Name', operator: 'eq', value: 'a\u0000b' })).issues[0]!.message).to.match(/NUL/);
      expect(issuesOf(() => compile({ field: 'recordTypeId', operator: 'eq', value: 2 ** 31 })).issues[0]!.message).to.equal('is out of range');
      expect(issuesOf(() => compile({ field: 'createdAt', operator: 'eq', value: '9999-12-31' })).issues[0]!.message).to.equal('is out of range');
    });

    it('names an unknown option', () => {
      const { issues } = issuesOf(() => compile({ field: 'Tags', operator: 'hasAny', value: ['Open', 'Pending'] }));
      expect(issues[0]!.code).to.equal('not_found');
      expect(issues[0]!.path).to.equal('filter.value[1]');
      expect(issues[0]!.message).to.equal('names no option of field "Tags": "Pending"; its options are "Open", "Won", "Lost"');
    });

    it('refuses formula fields clearly', () => {
      expect(issuesOf(() => compile({ field: 'Score', operator: 'eq', value: 1 })).issues[0]).to.deep.equal({
        code: 'not_filterable',
        path: 'filter.field',
        message: 'is formula field "Score", which cannot be used in filters yet',
      });
    });

    it('checks the shape and lists every problem, under a custom root path', () => {
      const { error, issues } = issuesOf(() =>
        compile(
          { or: [{ field: 'Name' }, { and: [] }, 'x', { field: 'Name', operator: 'isEmpty', extra: 1 }, { and: [], or: [] }] },
          'metadata.applyIf',
        ),
      );
      expect(issues.map((i) => [i.code, i.path])).to.deep.equal([
        ['required', 'metadata.applyIf.or[0].operator'],
        ['invalid', 'metadata.applyIf.or[1].and'],
        ['invalid', 'metadata.applyIf.or[2]'],
        ['unknown_field', 'metadata.applyIf.or[3].extra'],
        ['invalid', 'metadata.applyIf.or[4]'],
      ]);
      expect(error.message).to.equal('Invalid metadata.applyIf: metadata.applyIf.or[0].operator is required (and 4 more)');
    });

    it('limits nesting to 5 groups', () => {
      const nest = (levels: number): unknown => {
        let node: unknown = { field: 'Name', operator: 'isEmpty' };
        for (let i = levels - 1; i >= 0; i--) node = { [i % 2 ? 'or' : 'and']: [node] };
        return node;
      };
      expect(() => compile(nest(5))).not.to.throw();
      const { issues } = issuesOf(() => compile(nest(6)));
      expect(issues).to.deep.equal([
        { code: 'too_deep', path: 'filter.and[0].or[0].and[0].or[0].and[0]', message: 'nests groups deeper than 5 levels' },
      ]);
    });

    it('limits the number of conditions to 100', () => {
      const condition = { field: 'Name', operator: 'isNotEmpty' };
      expect(() => compile({ or: Array.from({ length: MAX_FILTER_CONDITIONS }, () => condition) })).not.to.throw();
      const { issues } = issuesOf(() =>
        compile({ and: [{ or: Array.from({ length: 60 }, () => condition) }, { or: Array.from({ length: 60 }, () => condition) }] }),
      );
      expect(issues).to.deep.equal([
        { code: 'too_many_conditions', path: 'filter.and[1].or[40]', message: 'exceeds the limit of 100 conditions per filter' },
      ]);
    });
  });

  describe('JSON Schema', () => {
    it('compiles with the API ajv (strict) and accepts what the compiler accepts', () => {
      const validate = compileSchema(QueryFilterSchema);
      for (const ok of [
        {},
        { field: 'Name', operator: 'isEmpty' },
        { and: [{ field: 3, operator: 'eq', value: true }, { or: [{ field: 'createdAt', operator: 'after', value: '2024-01-01' }] }] },
      ]) {
        expect(validate(ok), JSON.stringify(validate.errors)).to.equal(true);
      }
      for (const bad of [{ and: [] }, { field: 'Name' }, { field: 'Name', operator: 'like' }, { and: [{}] }, { field: 1.5, operator: 'eq' }, []]) {
        expect(validate(bad), JSON.stringify(bad)).to.equal(false);
      }
      const body = compileSchema({ type: 'object', properties: { filter: QueryFilterSchema, sort: QuerySortSchema } });
      const data: Record<string, unknown> = { filter: { field: 'Name', operator: 'isEmpty' }, sort: [{ field: 'Amount' }] };
      expect(body(data)).to.equal(true);
      expect(data.sort).to.deep.equal([{ field: 'Amount', direction: 'asc' }]);
      expect(String((QueryFilterSchema.$defs as any).Condition.properties.operator.description)).to.include('| select (multiSelect) | hasAny');
    });
  });
});

describe('query sort, cursor and search compilers', () => {
  it('sorts by id ascending by default and always ends with id', () => {
    expect(compileSort(undefined, FIELDS, 'r')).to.deep.equal([
      { sql: '??', bindings: ['r.id'], direction: 'asc', nulls: 'last', type: 'bpchar', notNull: true },
    ]);
    const keys = compileSort([{ field: 'status', direction: 'desc' }, { field: 'Name' }], FIELDS, 'r');
    expect(keys.map((k) => [k.sql, k.bindings, k.direction, k.type])).to.deep.equal([
      ['array_position(?::integer[], ??)', [[12, 13, 11], 'r.f_6'], 'desc', 'integer'],
      ['lower(??)', ['r.f_1'], 'asc', 'text'],
      ['??', ['r.id'], 'asc', 'bpchar'],
    ]);
    expect(orderByClause(keys).sql).to.equal('array_position(?::integer[], ??) desc nulls last, lower(??) asc nulls last, ?? asc nulls last');
    expect(compileSort([{ field: 'id', direction: 'desc' }, { field: 'Name' }], FIELDS, 'r').map((k) => k.direction)).to.deep.equal(['desc']);
  });

  it('refuses fields that cannot be sorted by', () => {
    const { issues } = issuesOf(() =>
      compileSort([{ field: 'Tags' }, { field: 'Contacts' }, { field: 'Nope' }, { field: 'Name', direction: 'up' }], FIELDS, 'r'),
    );
    expect(issues.map((i) => [i.code, i.path])).to.deep.equal([
      ['not_sortable', 'sort[0].field'],
      ['not_sortable', 'sort[1].field'],
      ['not_found', 'sort[2].field'],
      ['invalid', 'sort[3].direction'],
    ]);
    expect(issuesOf(() => compileSort({ field: 'Name' }, FIELDS, 'r')).issues[0]!.path).to.equal('sort');
  });

  it('round-trips cursors and refuses garbage', () => {
    const cursor = encodeCursor(['a b', null, '2024-01-01T00:00:00.123456Z']);
    expect(cursor).to.match(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(cursor, 3)).to.deep.equal(['a b', null, '2024-01-01T00:00:00.123456Z']);
    for (const bad of ['', '!!!', 'bm90IGpzb24', encodeCursor(['x']), Buffer.from('{"a":1}').toString('base64url')]) {
      const { error } = issuesOf(() => decodeCursor(bad, 3));
      expect(error.message).to.equal('Invalid cursor');
    }
  });

  it('builds the expanded keyset condition with NULLS LAST (the row id, never null, as a plain comparison)', () => {
    const keys = compileSort([{ field: 'Amount', direction: 'desc' }], FIELDS, 'r');
    expect(keysetCondition(keys, ['5', ID_A])).to.deep.equal({
      sql: '((?? < ?::numeric or ?? is null) or (?? = ?::numeric and ?? > ?::bpchar))',
      bindings: ['r.f_2', '5', 'r.f_2', 'r.f_2', '5', 'r.id', ID_A],
    });
    expect(keysetCondition(keys, [null, ID_A])).to.deep.equal({
      sql: '(?? is null and ?? > ?::bpchar)',
      bindings: ['r.f_2', 'r.id', ID_A],
    });
    expect(issuesOf(() => keysetCondition(keys, ['five', ID_A])).error.message).to.equal('Invalid cursor');
    expect(issuesOf(() => keysetCondition(keys, ['5', 'not an id'])).error.message).to.equal('Invalid cursor');
    const select = sortKeySelect(keys);
    expect(select).to.deep.equal({ sql: '(??)::text as ??, (??)::text as ??', bindings: ['r.f_2', '_k0', 'r.id', '_k1'] });
    expect(decodeCursor(cursorFromRow({ _k0: '5', _k1: ID_A }, keys), 2)).to.deep.equal(['5', ID_A]);
  });

  it('turns a search into prefix terms without letting tsquery syntax through', () => {
    expect(searchQueryText('acme wid')).to.equal("'acme':* & 'wid':*");
    expect(searchQueryText("it's a\\b !x | (y) <-> z:*")).to.equal("'it''s':* & 'a\\\\b':* & '!x':* & '(y)':* & 'z:*':*");
    expect(searchQueryText(' !!! & | ')).to.equal(null);
    expect(compileSearch(' ... ', 'r')).to.deep.equal({ sql: 'true', bindings: [] });
    expect(compileSearch('Acme', 'r')).to.deep.equal({ sql: "?? @@ to_tsquery('simple', ?)", bindings: ['r._search', "'Acme':*"] });
  });
});
