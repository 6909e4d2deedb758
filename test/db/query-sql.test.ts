/**
 * The query compilers against real PostgreSQL: a throw-away row table with one column per field type and a
 * link table, 30 rows, and for each operator the exact set of ids PostgreSQL returns, compared with the same
 * predicate evaluated in JavaScript. Sorts are paged through with keyset cursors.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import type { Knex } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../lib/errors.js';
import { cursorFromRow, decodeCursor, keysetCondition, sortKeySelect } from '../../db/tables/query/cursor.js';
import { compileFilter } from '../../db/tables/query/filter.js';
import { compileSearch } from '../../db/tables/query/search.js';
import { compileSort, orderByClause } from '../../db/tables/query/sort.js';
import type { FieldModel } from '../../db/tables/types.js';
import { harness } from '../setup/harness.js';
import { fieldModel } from '../setup/field-models.js';

const suffix = randomBytes(4).toString('hex');
const TABLE = `rows_qtest_${suffix}`;
const LINKS = `links_qtest_${suffix}`;
const QUALIFIED = `data.${TABLE}`;

const field = fieldModel;

const OPTIONS = [
  { id: 101, name: 'Open', color: null, order: 2 },
  { id: 102, name: 'Won', color: null, order: 0 },
  { id: 103, name: 'Lost', color: null, order: 1 },
];

const FIELDS: FieldModel[] = [
  field(1, 'Name', 'string', { format: 'text' }),
  field(2, 'Amount', 'number', { format: 'decimal' }),
  field(3, 'Active', 'boolean'),
  field(4, 'Due', 'date', { timezone: 'America/New_York' }),
  field(5, 'Birthday', 'dateOnly'),
  field(6, 'Status', 'select', { mode: 'singleSelect' }, { options: OPTIONS }),
  field(7, 'Tags', 'select', { mode: 'multiSelect' }, { options: OPTIONS }),
  field(8, 'Company', 'relation', { mode: 'single', relatedTableId: 1 }),
  field(9, 'Contacts', 'relation', { mode: 'multi', relatedTableId: 1 }, { column: null, linkTable: LINKS }),
  field(10, 'Owner', 'entityRelation', { entityModel: 'User', mode: 'single' }),
  field(11, 'Chats', 'entityRelation', { entityModel: 'Conversation', mode: 'multi' }),
  field(12, 'Email', 'string', { format: 'email' }),
  field(13, 'Files', 'file'),
  field(15, 'Watchers', 'entityRelation', { entityModel: 'User', mode: 'multi' }),
];

const TARGETS = [0, 1, 2, 3].map((k) => `cccccccccccccccccccccc0${k}`);

interface Row {
  id: string;
  recordTypeId: number | null;
  createdAt: string;
  name: string | null;
  amount: number | null;
  active: boolean | null;
  due: string | null;
  birthday: string | null;
  status: number | null;
  tags: number[] | null;
  company: string | null;
  contacts: string[];
  owner: number | null;
  chats: string[] | null;
  email: string | null;
  files: string | null;
  watchers: number[] | null;
}

const NAMES = ['Alpha Widget', 'beta gadget', 'Gamma 50% off', 'delta_under', null, '', 'ALPHA two', 'Epsilon', 'zeta', 'Beta Max'];
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

const ROWS: Row[] = Array.from({ length: 30 }, (_, i) => ({
  id: (0x65f00000 + i).toString(16).padStart(24, '0'),
  recordTypeId: i % 3 === 0 ? null : i % 3,
  createdAt: `2024-03-01T00:00:${pad(Math.floor(i / 4))}.${pad(i % 2, 6)}Z`,
  name: NAMES[i % 10]!,
  amount: i % 7 === 0 ? null : ((i * 37) % 11) - 3 + (i % 2 ? 0.5 : 0),
  active: [true, false, null][i % 3]!,
  due: i % 5 === 4 ? null : `2024-07-${pad(1 + (i % 4))}T${pad((i * 5) % 24)}:30:00.000Z`,
  birthday: i % 6 === 5 ? null : `19${80 + (i % 20)}-${pad(1 + (i % 9))}-1${i % 10}`,
  status: [101, 102, 103, null][i % 4]!,
  tags: [[101], [102, 103], [], null, [101, 102, 103], [102]][i % 6]!,
  company: i % 3 ? TARGETS[i % 4]! : null,
  contacts: TARGETS.filter((_, k) => ((i % 16) >> k) & 1),
  owner: i % 4 ? (i % 4) * 10 : null,
  chats: [null, ['conv-a'], ['conv-a', 'conv-b']][i % 3]!,
  email: i % 2 ? `user${i}.name@example.com` : null,
  files: [null, '[]', '[{"id":1}]', '{}'][i % 4]!,
  watchers: i % 2 ? [1, 2] : i % 4 ? [] : null,
}));

const ALL = ROWS.map((r) => r.id);
const ms = (iso: string) => new Date(iso).getTime();
const nyDate = (iso: string) => new Intl.DateTimeFormat('en-CA', { timeZone: 'America/New_York' }).format(new Date(iso));
const has = <T>(list: T[] | null, item: T) => (list ?? []).includes(item);

let knex: Knex;

async function ids(where: { sql: string; bindings: unknown[] }): Promise<string[]> {
  const rows = await knex
    .select('r.id')
    .from(`${QUALIFIED} as r`)
    .whereRaw(where.sql, where.bindings as Knex.RawBinding[])
    .orderBy('r.id');
  return rows.map((row: { id: string }) => row.id);
}

function filterSql(filter: unknown) {
  return compileFilter(filter, FIELDS, { alias: 'r' });
}

describe('query compilers on PostgreSQL', () => {
  before(async () => {
    knex = harness().orm.em.getKnex();
    await knex.raw('create schema if not exists data');
    await knex.raw(
      `create table ?? (
        id char(24) primary key, record_type_id integer, created_at timestamptz not null, updated_at timestamptz not null,
        _search tsvector, f_1 text, f_2 numeric, f_3 boolean, f_4 timestamptz, f_5 date, f_6 integer, f_7 integer[],
        f_8 char(24), f_10 integer, f_11 text[], f_12 text, f_13 jsonb, f_15 integer[])`,
      [QUALIFIED],
    );
    await knex.raw('create table ?? (source_id char(24) not null, target_id char(24) not null, primary key (source_id, target_id))', [
      `data.${LINKS}`,
    ]);
    await knex(QUALIFIED).insert(
      ROWS.map((r) => ({
        id: r.id,
        record_type_id: r.recordTypeId,
        created_at: r.createdAt,
        updated_at: r.createdAt,
        f_1: r.name,
        f_2: r.amount,
        f_3: r.active,
        f_4: r.due,
        f_5: r.birthday,
        f_6: r.status,
        f_7: r.tags,
        f_8: r.company,
        f_10: r.owner,
        f_11: r.chats,
        f_12: r.email,
        f_13: r.files,
        f_15: r.watchers,
      })),
    );
    await knex(`data.${LINKS}`).insert(ROWS.flatMap((r) => r.contacts.map((target) => ({ source_id: r.id, target_id: target }))));
    await knex.raw(`update ?? set _search = to_tsvector('simple', concat_ws(' ', f_1, f_12))`, [QUALIFIED]);
  });

  after(async () => {
    await knex.raw('drop table if exists ??', [QUALIFIED]);
    await knex.raw('drop table if exists ??', [`data.${LINKS}`]);
  });

  type Case = [filter: Record<string, unknown>, expected: (r: Row) => boolean];
  const families: Record<string, Case[]> = {
    string: [
      [{ field: 'Name', operator: 'eq', value: 'zeta' }, (r) => r.name === 'zeta'],
      [{ field: 'name', operator: 'neq', value: 'zeta' }, (r) => r.name !== 'zeta'],
      [{ field: 'Name', operator: 'contains', value: 'ALPHA' }, (r) => !!r.name?.toLowerCase().includes('alpha')],
      [{ field: 'Name', operator: 'contains', value: '50%' }, (r) => !!r.name?.includes('50%')],
      [{ field: 'Name', operator: 'contains', value: '_' }, (r) => !!r.name?.includes('_')],
      [{ field: 'Name', operator: 'notContains', value: 'a' }, (r) => !r.name?.toLowerCase().includes('a')],
      [{ field: 'Name', operator: 'startsWith', value: 'be' }, (r) => !!r.name?.toLowerCase().startsWith('be')],
      [{ field: 'Name', operator: 'endsWith', value: 'OFF' }, (r) => !!r.name?.toLowerCase().endsWith('off')],
      [{ field: 'Name', operator: 'in', value: ['zeta', 'Epsilon'] }, (r) => r.name === 'zeta' || r.name === 'Epsilon'],
      [{ field: 'Name', operator: 'notIn', value: ['zeta'] }, (r) => r.name !== 'zeta'],
      [{ field: 'Name', operator: 'isEmpty' }, (r) => !r.name],
      [{ field: 'Name', operator: 'isNotEmpty' }, (r) => !!r.name],
    ],
    number: [
      [{ field: 'Amount', operator: 'eq', value: 4 }, (r) => r.amount === 4],
      [{ field: 'Amount', operator: 'neq', value: 4 }, (r) => r.amount !== 4],
      [{ field: 'Amount', operator: 'gt', value: 3 }, (r) => r.amount !== null && r.amount > 3],
      [{ field: 'Amount', operator: 'gte', value: '3.5' }, (r) => r.amount !== null && r.amount >= 3.5],
      [{ field: 'Amount', operator: 'lt', value: 0 }, (r) => r.amount !== null && r.amount < 0],
      [{ field: 'Amount', operator: 'lte', value: -1 }, (r) => r.amount !== null && r.amount <= -1],
      [{ field: 'Amount', operator: 'between', value: [-1, 2] }, (r) => r.amount !== null && r.amount >= -1 && r.amount <= 2],
      [{ field: 'Amount', operator: 'in', value: [1, '2.5'] }, (r) => r.amount === 1 || r.amount === 2.5],
      [{ field: 'Amount', operator: 'notIn', value: [1, 2.5] }, (r) => r.amount !== 1 && r.amount !== 2.5],
      [{ field: 'Amount', operator: 'isEmpty' }, (r) => r.amount === null],
      [{ field: 'Amount', operator: 'isNotEmpty' }, (r) => r.amount !== null],
    ],
    boolean: [
      [{ field: 'Active', operator: 'eq', value: true }, (r) => r.active === true],
      [{ field: 'Active', operator: 'eq', value: false }, (r) => r.active !== true],
      [{ field: 'Active', operator: 'isEmpty' }, (r) => r.active === null],
      [{ field: 'Active', operator: 'isNotEmpty' }, (r) => r.active !== null],
    ],
    date: [
      [{ field: 'Due', operator: 'eq', value: '2024-07-02T05:30:00Z' }, (r) => r.due !== null && ms(r.due) === ms('2024-07-02T05:30:00Z')],
      [{ field: 'Due', operator: 'eq', value: '2024-07-02' }, (r) => r.due !== null && nyDate(r.due) === '2024-07-02'],
      [{ field: 'Due', operator: 'before', value: '2024-07-02' }, (r) => r.due !== null && nyDate(r.due) < '2024-07-02'],
      [{ field: 'Due', operator: 'after', value: '2024-07-02' }, (r) => r.due !== null && nyDate(r.due) > '2024-07-02'],
      [{ field: 'Due', operator: 'onOrBefore', value: '2024-07-02' }, (r) => r.due !== null && nyDate(r.due) <= '2024-07-02'],
      [{ field: 'Due', operator: 'onOrAfter', value: '2024-07-03T00:30:00-04:00' }, (r) => r.due !== null && ms(r.due) >= ms('2024-07-03T04:30:00Z')],
      [{ field: 'Due', operator: 'after', value: '2024-07-03T04:30:00Z' }, (r) => r.due !== null && ms(r.due) > ms('2024-07-03T04:30:00Z')],
      [
        { field: 'Due', operator: 'between', value: ['2024-07-01', '2024-07-02T12:00:00Z'] },
        (r) => r.due !== null && nyDate(r.due) >= '2024-07-01' && ms(r.due) <= ms('2024-07-02T12:00:00Z'),
      ],
      [{ field: 'Due', operator: 'isEmpty' }, (r) => r.due === null],
      [{ field: 'createdAt', operator: 'after', value: '2024-03-01T00:00:03.000000Z' }, (r) => r.createdAt > '2024-03-01T00:00:03.000000Z'],
      [{ field: 'createdAt', operator: 'onOrBefore', value: '2024-03-01T00:00:03Z' }, (r) => r.createdAt <= '2024-03-01T00:00:03.000000Z'],
      [{ field: 'updatedAt', operator: 'eq', value: '2024-03-01' }, () => true],
    ],
    dateOnly: [
      [{ field: 'Birthday', operator: 'eq', value: '1982-03-12' }, (r) => r.birthday === '1982-03-12'],
      [{ field: 'Birthday', operator: 'before', value: '1985-01-01' }, (r) => r.birthday !== null && r.birthday < '1985-01-01'],
      [{ field: 'Birthday', operator: 'onOrAfter', value: '1990-01-01' }, (r) => r.birthday !== null && r.birthday >= '1990-01-01'],
      [
        { field: 'Birthday', operator: 'between', value: ['1983-01-01', '1993-12-31'] },
        (r) => !!r.birthday && r.birthday >= '1983' && r.birthday <= '1993-12-31',
      ],
      [{ field: 'Birthday', operator: 'isEmpty' }, (r) => r.birthday === null],
    ],
    select: [
      [{ field: 'Status', operator: 'eq', value: 'won' }, (r) => r.status === 102],
      [{ field: 'Status', operator: 'neq', value: 'Won' }, (r) => r.status !== 102],
      [{ field: 'Status', operator: 'in', value: ['Open', 'Lost'] }, (r) => r.status === 101 || r.status === 103],
      [{ field: 'Status', operator: 'notIn', value: ['Open'] }, (r) => r.status !== 101],
      [{ field: 'Status', operator: 'isEmpty' }, (r) => r.status === null],
      [{ field: 'Tags', operator: 'hasAny', value: ['Won'] }, (r) => has(r.tags, 102)],
      [{ field: 'Tags', operator: 'hasAll', value: ['Won', 'Lost'] }, (r) => has(r.tags, 102) && has(r.tags, 103)],
      [{ field: 'Tags', operator: 'hasNone', value: ['Open'] }, (r) => !has(r.tags, 101)],
      [{ field: 'Tags', operator: 'isEmpty' }, (r) => !r.tags?.length],
      [{ field: 'Tags', operator: 'isNotEmpty' }, (r) => !!r.tags?.length],
    ],
    relation: [
      [{ field: 'Company', operator: 'eq', value: TARGETS[1] }, (r) => r.company === TARGETS[1]],
      [{ field: 'Company', operator: 'neq', value: TARGETS[1]!.toUpperCase() }, (r) => r.company !== TARGETS[1]],
      [{ field: 'Company', operator: 'in', value: [TARGETS[0], TARGETS[2]] }, (r) => r.company === TARGETS[0] || r.company === TARGETS[2]],
      [{ field: 'Company', operator: 'isEmpty' }, (r) => r.company === null],
      [{ field: 'Contacts', operator: 'hasAny', value: [TARGETS[0]] }, (r) => r.contacts.includes(TARGETS[0]!)],
      [
        { field: 'Contacts', operator: 'hasAll', value: [TARGETS[0], TARGETS[1]] },
        (r) => r.contacts.includes(TARGETS[0]!) && r.contacts.includes(TARGETS[1]!),
      ],
      [
        { field: 'Contacts', operator: 'hasNone', value: [TARGETS[2], TARGETS[3]] },
        (r) => !r.contacts.includes(TARGETS[2]!) && !r.contacts.includes(TARGETS[3]!),
      ],
      [{ field: 'Contacts', operator: 'isEmpty' }, (r) => r.contacts.length === 0],
      [{ field: 'Contacts', operator: 'isNotEmpty' }, (r) => r.contacts.length > 0],
    ],
    entityRelation: [
      [{ field: 'Owner', operator: 'eq', value: 10 }, (r) => r.owner === 10],
      [{ field: 'Owner', operator: 'in', value: [10, 30] }, (r) => r.owner === 10 || r.owner === 30],
      [{ field: 'Owner', operator: 'notIn', value: [10] }, (r) => r.owner !== 10],
      [{ field: 'Owner', operator: 'isEmpty' }, (r) => r.owner === null],
      [{ field: 'Chats', operator: 'hasAny', value: ['conv-b'] }, (r) => has(r.chats, 'conv-b')],
      [{ field: 'Chats', operator: 'hasAll', value: ['conv-a', 'conv-b'] }, (r) => has(r.chats, 'conv-a') && has(r.chats, 'conv-b')],
      [{ field: 'Chats', operator: 'hasNone', value: ['conv-b'] }, (r) => !has(r.chats, 'conv-b')],
      [{ field: 'Chats', operator: 'isEmpty' }, (r) => !r.chats?.length],
      [{ field: 'Watchers', operator: 'hasAny', value: [2, 99] }, (r) => has(r.watchers, 2)],
      [{ field: 'Watchers', operator: 'isEmpty' }, (r) => !r.watchers?.length],
    ],
    'file and system fields': [
      [{ field: 'Files', operator: 'isEmpty' }, (r) => r.files !== '[{"id":1}]'],
      [{ field: 'Files', operator: 'isNotEmpty' }, (r) => r.files === '[{"id":1}]'],
      [{ field: 'id', operator: 'eq', value: ALL[3] }, (r) => r.id === ALL[3]],
      [{ field: 'id', operator: 'in', value: [ALL[3], ALL[7]!.toUpperCase()] }, (r) => r.id === ALL[3] || r.id === ALL[7]],
      [{ field: 'id', operator: 'notIn', value: [ALL[3]] }, (r) => r.id !== ALL[3]],
      [{ field: 'recordTypeId', operator: 'eq', value: 1 }, (r) => r.recordTypeId === 1],
      [{ field: 'recordTypeId', operator: 'neq', value: 1 }, (r) => r.recordTypeId !== 1],
      [{ field: 'recordTypeId', operator: 'isEmpty' }, (r) => r.recordTypeId === null],
    ],
    groups: [
      [
        {
          and: [
            { field: 'Name', operator: 'contains', value: 'alpha' },
            { field: 'Active', operator: 'eq', value: true },
          ],
        },
        (r) => !!r.name?.toLowerCase().includes('alpha') && r.active === true,
      ],
      [
        {
          or: [
            { field: 'Status', operator: 'eq', value: 'Won' },
            {
              and: [
                { field: 'Amount', operator: 'gt', value: 5 },
                { field: 'Contacts', operator: 'hasAny', value: [TARGETS[3]] },
              ],
            },
          ],
        },
        (r) => r.status === 102 || (r.amount !== null && r.amount > 5 && r.contacts.includes(TARGETS[3]!)),
      ],
      [{ field: 'Name', operator: 'in', value: [] }, () => false],
      [{}, () => true],
    ],
  };

  for (const [family, cases] of Object.entries(families)) {
    it(`returns exactly the matching rows: ${family}`, async () => {
      for (const [filter, expected] of cases) {
        const want = ROWS.filter(expected).map((r) => r.id);
        expect(await ids(filterSql(filter)), JSON.stringify(filter)).to.deep.equal(want);
      }
    });
  }

  it('treats SQL-looking values as data', async () => {
    const evil = `'); drop table ${QUALIFIED}; --`;
    for (const filter of [
      { field: 'Name', operator: 'eq', value: evil },
      { field: 'Name', operator: 'contains', value: evil },
      { field: 'Name', operator: 'in', value: [evil, 'x" or 1=1 --'] },
      { field: 'Chats', operator: 'hasAny', value: [evil] },
    ]) {
      expect(await ids(filterSql(filter))).to.deep.equal([]);
    }
    expect(await ids(compileSearch(evil, 'r'))).to.deep.equal([]);
    expect(await ids(filterSql({ field: 'Name', operator: 'notContains', value: evil }))).to.have.length(30);
    const [{ count }] = (await knex(QUALIFIED).count({ count: '*' })) as Array<{ count: string }>;
    expect(Number(count)).to.equal(30);
  });

  it('finds rows by word prefixes, with tsquery syntax treated as text', async () => {
    const byName = (test: RegExp) => ROWS.filter((r) => test.test(r.name ?? '')).map((r) => r.id);
    expect(await ids(compileSearch('alp', 'r'))).to.deep.equal(byName(/\balp/i));
    expect(await ids(compileSearch('ALPHA wid', 'r'))).to.deep.equal(byName(/alpha widget/i));
    expect(await ids(compileSearch('und', 'r'))).to.deep.equal(byName(/_under/));
    expect(await ids(compileSearch('user1', 'r'))).to.deep.equal(ROWS.filter((r) => r.email?.startsWith('user1')).map((r) => r.id));
    expect(await ids(compileSearch('user13.name@example.com', 'r'))).to.deep.equal([ALL[13]]);
    expect(await ids(compileSearch('alpha | zeta', 'r'))).to.deep.equal([]);
    expect(await ids(compileSearch("!zeta & (beta) 'x':*", 'r'))).to.deep.equal([]);
    expect(await ids(compileSearch('!zeta', 'r'))).to.deep.equal(byName(/zeta/));
    expect(await ids(compileSearch(' ?!. ', 'r'))).to.deep.equal(ALL);
  });

  async function page(sort: unknown, filter: unknown, cursor: string | null, limit: number) {
    const keys = compileSort(sort, FIELDS, 'r');
    const where = filterSql(filter);
    const select = sortKeySelect(keys);
    const order = orderByClause(keys);
    let query = knex
      .select('r.id', knex.raw(select.sql, select.bindings as Knex.RawBinding[]))
      .from(`${QUALIFIED} as r`)
      .whereRaw(where.sql, where.bindings as Knex.RawBinding[]);
    if (cursor) {
      const after = keysetCondition(keys, decodeCursor(cursor, keys.length));
      query = query.whereRaw(after.sql, after.bindings as Knex.RawBinding[]);
    }
    const rows = (await query.orderByRaw(order.sql, order.bindings as Knex.RawBinding[]).limit(limit + 1)) as Array<Record<string, unknown>>;
    const more = rows.length > limit;
    const shown = rows.slice(0, limit);
    return { ids: shown.map((r) => r.id as string), next: more ? cursorFromRow(shown[shown.length - 1]!, keys) : null };
  }

  async function pageAll(sort: unknown, filter: unknown = undefined, limit = 7): Promise<string[]> {
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; i < 40; i++) {
      const result: { ids: string[]; next: string | null } = await page(sort, filter, cursor, limit);
      seen.push(...result.ids);
      cursor = result.next;
      if (!cursor) return seen;
    }
    throw new Error('pagination did not end');
  }

  const SORTS: unknown[] = [
    undefined,
    [{ field: 'Amount' }],
    [{ field: 'Amount', direction: 'desc' }],
    [{ field: 'Name' }],
    [{ field: 'Name', direction: 'desc' }],
    [{ field: 'Status', direction: 'desc' }],
    [{ field: 'Due' }],
    [{ field: 'Birthday', direction: 'desc' }],
    [{ field: 'Active' }, { field: 'Amount', direction: 'desc' }],
    [{ field: 'id', direction: 'desc' }],
    [{ field: 'createdAt', direction: 'desc' }],
    [{ field: 'createdAt' }],
    [{ field: 'recordTypeId' }, { field: 'Name', direction: 'desc' }],
    [{ field: 'Company' }, { field: 'Email', direction: 'desc' }],
    [{ field: 'Owner', direction: 'desc' }, { field: 'Active', direction: 'desc' }, { field: 'Birthday' }],
  ];

  it('pages through every sort with keyset cursors, each row exactly once and in order', async () => {
    for (const sort of SORTS) {
      const full = (await page(sort, undefined, null, 1000)).ids;
      expect(full, JSON.stringify(sort)).to.have.length(30);
      for (const limit of [1, 4, 7]) {
        expect(await pageAll(sort, undefined, limit), `${JSON.stringify(sort)} limit ${limit}`).to.deep.equal(full);
      }
    }
    const filter = { field: 'Name', operator: 'isNotEmpty' };
    const filtered = (await page([{ field: 'Amount', direction: 'desc' }], filter, null, 1000)).ids;
    expect(filtered).to.have.length(ROWS.filter((r) => r.name).length);
    expect(await pageAll([{ field: 'Amount', direction: 'desc' }], filter, 5)).to.deep.equal(filtered);
  });

  it('orders as documented: nulls last both ways, ties by id, select by option order, microseconds kept', async () => {
    const byId = (a: Row, b: Row) => (a.id < b.id ? -1 : 1);
    const amount = (direction: 1 | -1) => (a: Row, b: Row) => {
      if (a.amount === b.amount) return byId(a, b);
      if (a.amount === null) return 1;
      if (b.amount === null) return -1;
      return direction * (a.amount - b.amount);
    };
    expect(await pageAll([{ field: 'Amount' }])).to.deep.equal([...ROWS].sort(amount(1)).map((r) => r.id));
    expect(await pageAll([{ field: 'Amount', direction: 'desc' }])).to.deep.equal([...ROWS].sort(amount(-1)).map((r) => r.id));
    const rank = (r: Row) => (r.status === null ? 99 : OPTIONS.find((o) => o.id === r.status)!.order);
    const status = [...ROWS].sort((a, b) => {
      if (rank(a) === rank(b)) return byId(a, b);
      if (rank(a) === 99) return 1;
      if (rank(b) === 99) return -1;
      return rank(b) - rank(a);
    });
    expect(await pageAll([{ field: 'Status', direction: 'desc' }], undefined, 3)).to.deep.equal(status.map((r) => r.id));
    const created = [...ROWS].sort((a, b) => (a.createdAt === b.createdAt ? byId(a, b) : a.createdAt < b.createdAt ? 1 : -1));
    expect(await pageAll([{ field: 'createdAt', direction: 'desc' }], undefined, 3)).to.deep.equal(created.map((r) => r.id));
    const names = await pageAll([{ field: 'Name' }]);
    const lowered = names.map((id) => ROWS.find((r) => r.id === id)!.name?.toLowerCase() ?? null);
    expect(lowered.slice(0, 3)).to.deep.equal(['', '', '']);
    expect(lowered.slice(3, 9)).to.deep.equal(['alpha two', 'alpha two', 'alpha two', 'alpha widget', 'alpha widget', 'alpha widget']);
    expect(lowered.slice(-3)).to.deep.equal([null, null, null]);
    expect(await pageAll(undefined)).to.deep.equal(ALL);
  });

  it('answers 400 for a forged cursor instead of a database error', async () => {
    const keys = compileSort([{ field: 'createdAt' }], FIELDS, 'r');
    try {
      keysetCondition(keys, decodeCursor(Buffer.from(JSON.stringify(['yesterday', ALL[0]])).toString('base64url'), 2));
      expect.fail('expected an error');
    } catch (error) {
      expect(error).to.be.instanceOf(BadRequestError);
      expect((error as Error).message).to.equal('Invalid cursor');
    }
  });
});
