/**
 * Multi-row INSERT as one statement with one array parameter per column (`select … from unnest(…)`): the SQL
 * text stays small and fixed whatever the number of rows, which keeps bulk creates fast.
 */
import type { Knex } from '@mikro-orm/postgresql';
import { query } from './catalog.js';
import { qualified, rowTableName } from './ddl.js';
import { FIELD_TYPE_HANDLERS } from './field-types/index.js';
import type { FieldModel } from './types.js';

interface Column {
  name: string;
  type: string;
}

const SYSTEM: Column[] = [
  { name: 'id', type: 'text' },
  { name: 'record_type_id', type: 'integer' },
  { name: 'created_at', type: 'timestamptz' },
  { name: 'updated_at', type: 'timestamptz' },
];

/** `{1,2}` / `{"a","b"}`: a PostgreSQL array literal, so that array-typed cells travel inside one text[] parameter. */
function arrayLiteral(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  const items = (value as unknown[]).map((item) =>
    typeof item === 'number' ? String(item) : `"${String(item).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`,
  );
  return `{${items.join(',')}}`;
}

/** Inserts the records (column → value). */
export async function insertRows(trx: Knex, tableId: number, fields: FieldModel[], records: Record<string, unknown>[]): Promise<void> {
  const columns = [
    ...SYSTEM,
    ...fields.filter((f) => f.column).map((f) => ({ name: f.column!, type: FIELD_TYPE_HANDLERS[f.type].columnType(f.metadata)! })),
  ];
  const params: unknown[] = [];
  const unnests: string[] = [];
  const selects: string[] = [];
  columns.forEach((column, i) => {
    const isArray = column.type.endsWith('[]');
    const values = records.map((r) => (isArray ? arrayLiteral(r[column.name]) : (r[column.name] ?? null)));
    params.push(values);
    const paramType = isArray || column.type === 'jsonb' || column.type.startsWith('char') ? 'text' : column.type;
    unnests.push(`?::${paramType}[]`);
    selects.push(paramType === column.type ? `"c${i}"` : `"c${i}"::${column.type}`);
  });
  const names = columns.map((c) => `"${c.name}"`).join(', ');
  const aliases = columns.map((_, i) => `"c${i}"`).join(', ');
  await query(trx, `insert into ${qualified(rowTableName(tableId))} (${names}) select ${selects.join(', ')} from unnest(${unnests.join(', ')}) as u(${aliases})`, params);
}
