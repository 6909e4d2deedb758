import { EntitySchema, type Opt } from '@mikro-orm/core';
import { DataField } from './data-field.entity.js';

/** An option (tag) of a select field. Rows store its id, so renaming keeps every value. */
export class FieldOption {
  id!: number;
  field!: DataField;
  name!: string;
  color?: string | null;
  position: Opt<number> = 0;
  createdAt: Opt<Date> = new Date();
}

export const FieldOptionSchema = new EntitySchema<FieldOption>({
  class: FieldOption,
  tableName: 'data_field_options',
  indexes: [
    { name: 'data_field_options_field_index', properties: ['field'] },
    {
      name: 'data_field_options_name_unique',
      expression: 'create unique index "data_field_options_name_unique" on "data_field_options" ("field_id", lower("name"))',
    },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    field: { kind: 'm:1', entity: () => DataField, deleteRule: 'cascade' },
    name: { type: 'text' },
    color: { type: 'text', nullable: true },
    position: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
