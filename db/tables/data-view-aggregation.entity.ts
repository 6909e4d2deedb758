import { EntitySchema, type Opt } from '@mikro-orm/core';
import { DataField } from './data-field.entity.js';
import { DataView } from './data-view.entity.js';

/** Operations of view aggregations (count, emptiness, distinct values, sums and extremes, and percent variants). */
export const AGGREGATION_OPERATIONS = [
  'count',
  'countEmpty',
  'countFilled',
  'unique',
  'sum',
  'avg',
  'min',
  'max',
  'percentEmpty',
  'percentFilled',
  'percentUnique',
] as const;
export type AggregationOperation = (typeof AGGREGATION_OPERATIONS)[number];

/** One aggregation of a saved view: an operation over one field, computed over the rows the view shows. */
export class DataViewAggregation {
  id!: number;
  view!: DataView;
  field!: DataField;
  operation!: AggregationOperation;
  position: Opt<number> = 0;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const DataViewAggregationSchema = new EntitySchema<DataViewAggregation>({
  class: DataViewAggregation,
  tableName: 'data_view_aggregations',
  uniques: [{ name: 'data_view_aggregations_view_field_unique', properties: ['view', 'field'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    view: { kind: 'm:1', entity: () => DataView, deleteRule: 'cascade' },
    field: { kind: 'm:1', entity: () => DataField, deleteRule: 'cascade' },
    operation: { type: 'text' },
    position: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
