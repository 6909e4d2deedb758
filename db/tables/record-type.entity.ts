import { EntitySchema, type Opt } from '@mikro-orm/core';
import { DataTable } from './data-table.entity.js';

/** A record type of an Object; every Object has exactly one default record type. */
export class RecordType {
  id!: number;
  table!: DataTable;
  name!: string;
  description?: string | null;
  isDefault: Opt<boolean> = false;
  position: Opt<number> = 0;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const RecordTypeSchema = new EntitySchema<RecordType>({
  class: RecordType,
  tableName: 'data_record_types',
  indexes: [
    { name: 'data_record_types_table_index', properties: ['table'] },
    {
      name: 'data_record_types_name_unique',
      expression: 'create unique index "data_record_types_name_unique" on "data_record_types" ("table_id", lower("name"))',
    },
    {
      name: 'data_record_types_one_default',
      expression: 'create unique index "data_record_types_one_default" on "data_record_types" ("table_id") where "is_default"',
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    table: { kind: 'm:1', entity: () => DataTable, deleteRule: 'cascade' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    isDefault: { type: 'boolean', default: false },
    position: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
