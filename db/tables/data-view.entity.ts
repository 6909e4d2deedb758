import { EntitySchema, type Opt } from '@mikro-orm/core';
import { DataTable } from './data-table.entity.js';
import { RecordType } from './record-type.entity.js';

/** A saved view: a filter, a sort and the visible fields of an Object (optionally of one record type). */
export class DataView {
  id!: number;
  table!: DataTable;
  recordType?: RecordType | null;
  name!: string;
  filter?: unknown;
  sort: Opt<unknown[]> = [];
  visibleFieldIds: Opt<number[]> = [];
  position: Opt<number> = 0;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const DataViewSchema = new EntitySchema<DataView>({
  class: DataView,
  tableName: 'data_views',
  indexes: [{ name: 'data_views_table_index', properties: ['table'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    table: { kind: 'm:1', entity: () => DataTable, deleteRule: 'cascade' },
    recordType: { kind: 'm:1', entity: () => RecordType, nullable: true, deleteRule: 'cascade' },
    name: { type: 'text' },
    filter: { type: 'json', nullable: true },
    sort: { type: 'json' },
    visibleFieldIds: { type: 'json' },
    position: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
