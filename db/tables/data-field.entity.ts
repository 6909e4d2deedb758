import { EntitySchema, type Opt } from '@mikro-orm/core';
import type { FieldType } from './types.js';
import { DataTable } from './data-table.entity.js';
import { RecordType } from './record-type.entity.js';

/** A field (column) of an Object or Table; its values live in column `f_<id>` of the row table. */
export class DataField {
  id!: number;
  table!: DataTable;
  name!: string;
  type!: FieldType;
  metadata: Opt<Record<string, unknown>> = {};
  required: Opt<boolean> = false;
  unique: Opt<boolean> = false;
  defaultValue?: unknown;
  readOnly: Opt<boolean> = false;
  /** Built-in fields (the Users field of standard objects) cannot be deleted or retyped. */
  isSystem: Opt<boolean> = false;
  /** Set when the field belongs to one record type only; null: part of every record type. */
  recordType?: RecordType | null;
  position: Opt<number> = 0;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const DataFieldSchema = new EntitySchema<DataField>({
  class: DataField,
  tableName: 'data_fields',
  indexes: [
    { name: 'data_fields_table_index', properties: ['table'] },
    {
      name: 'data_fields_name_unique',
      expression: 'create unique index "data_fields_name_unique" on "data_fields" ("table_id", lower("name"))',
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    table: { kind: 'm:1', entity: () => DataTable, deleteRule: 'cascade' },
    name: { type: 'text' },
    type: { type: 'text' },
    metadata: { type: 'json' },
    required: { type: 'boolean', default: false },
    unique: { type: 'boolean', default: false },
    defaultValue: { type: 'json', nullable: true },
    readOnly: { type: 'boolean', default: false },
    isSystem: { type: 'boolean', default: false },
    recordType: { kind: 'm:1', entity: () => RecordType, nullable: true, deleteRule: 'cascade' },
    position: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
