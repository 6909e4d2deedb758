/**
 * Response schemas of the Objects and Tables endpoints, written from the read representations of
 * `db/tables/views.ts`, `tables.service.ts` and `row-values.ts` (`RowView`). Checked against every answer the API
 * tests receive, so they cannot drift from those representations. Schemas with an `$id` nested in others become
 * OpenAPI components of their own.
 */
import { FIELD_TYPES } from '../../db/tables/types.js';
import type { JsonSchema } from '../validation.js';
import { pageSchema, strictObject } from './common.schema.js';

const dateTime = { type: 'string', format: 'date-time' };
const nullableString = { type: ['string', 'null'] };
const integer = { type: 'integer' };

export const OptionSchema: JsonSchema = {
  $id: 'Option',
  ...strictObject({ id: integer, fieldId: integer, name: { type: 'string' }, color: nullableString, order: integer }),
  example: { id: 7, fieldId: 12, name: 'Won', color: '#2f9e44', order: 0 },
};

export const OptionListSchema: JsonSchema = {
  $id: 'OptionList',
  ...strictObject({ agentry: { type: 'array', items: OptionSchema }, nextCursor: { type: 'null', description: 'Every option is in the one page' } }),
};

const fieldProperties = {
  id: integer,
  name: { type: 'string' },
  type: { type: 'string', enum: [...FIELD_TYPES] },
  metadata: { type: 'object', description: 'Per type (see SPEC.md)' },
  required: { type: 'boolean' },
  unique: { type: 'boolean' },
  defaultValue: { description: 'Default for new records, or null' },
  readOnly: { type: 'boolean' },
  isSystem: { type: 'boolean' },
  record_type_id: { type: ['integer', 'null'] },
  order: integer,
  options: { type: 'array', items: OptionSchema, description: 'Select fields only' },
  createdAt: dateTime,
  updatedAt: dateTime,
};

/** Some field types also repeat metadata keys at the top level (`promotedKeys`), hence no `additionalProperties`. */
export const FieldSchema: JsonSchema = {
  $id: 'Field',
  type: 'object',
  required: Object.keys(fieldProperties).filter((key) => key !== 'options'),
  properties: fieldProperties,
  example: {
    id: 12,
    name: 'Amount',
    type: 'number',
    metadata: { decimals: 2 },
    required: false,
    unique: false,
    defaultValue: null,
    readOnly: false,
    isSystem: false,
    record_type_id: null,
    order: 3,
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
  },
};

export const FieldPageSchema: JsonSchema = { $id: 'FieldPage', ...pageSchema(FieldSchema) };

export const RecordTypeSchema: JsonSchema = {
  $id: 'RecordType',
  ...strictObject({
    id: integer,
    name: { type: 'string' },
    description: nullableString,
    isDefault: { type: 'boolean' },
    order: integer,
    fieldIds: { type: 'array', items: integer, description: 'Fields that apply to records of this type' },
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
};

export const RecordTypePageSchema: JsonSchema = { $id: 'RecordTypePage', ...pageSchema(RecordTypeSchema) };

export const ViewSchema: JsonSchema = {
  $id: 'View',
  ...strictObject({
    id: integer,
    name: { type: 'string' },
    recordTypeId: { type: ['integer', 'null'] },
    filter: { description: 'A QueryFilter, or null' },
    sort: { type: 'array', items: { type: 'object' } },
    visibleFieldIds: { type: ['array', 'null'], items: integer },
    order: integer,
    createdAt: dateTime,
    updatedAt: dateTime,
  }),
};

export const ViewPageSchema: JsonSchema = { $id: 'ViewPage', ...pageSchema(ViewSchema) };

const aggregationProperties = {
  id: integer,
  viewId: integer,
  fieldId: integer,
  operation: { type: 'string' },
  order: integer,
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const AggregationSchema: JsonSchema = { $id: 'Aggregation', ...strictObject(aggregationProperties) };
export const AggregationPageSchema: JsonSchema = { $id: 'AggregationPage', ...pageSchema(AggregationSchema) };

export const AggregationResultSchema: JsonSchema = {
  $id: 'AggregationResult',
  ...strictObject({
    rows: { type: 'integer', description: 'Rows the aggregations ran over' },
    agentry: {
      type: 'array',
      items: strictObject({ ...aggregationProperties, value: { description: 'A number; min and max keep the field type; null when empty' } }),
    },
  }),
  example: {
    rows: 42,
    agentry: [
      {
        id: 1,
        viewId: 3,
        fieldId: 12,
        operation: 'sum',
        order: 0,
        createdAt: '2026-01-05T10:00:00.000Z',
        updatedAt: '2026-01-05T10:00:00.000Z',
        value: 15300,
      },
    ],
  },
};

const tableProperties = {
  id: integer,
  name: { type: 'string', description: 'URL name' },
  displayName: { type: 'string' },
  emoji: nullableString,
  color: nullableString,
  description: nullableString,
  kind: { type: 'string', enum: ['object', 'table'] },
  isSystem: { type: 'boolean' },
  createdAt: dateTime,
  updatedAt: dateTime,
};

export const TableSummarySchema: JsonSchema = { $id: 'TableSummary', ...strictObject(tableProperties) };
export const TablePageSchema: JsonSchema = { $id: 'TablePage', ...pageSchema(TableSummarySchema) };

export const TableDetailSchema: JsonSchema = {
  $id: 'TableDetail',
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(tableProperties), 'fields', 'views'],
  properties: {
    ...tableProperties,
    fields: { type: 'array', items: FieldSchema },
    views: { type: 'array', items: ViewSchema },
    recordTypes: { type: 'array', items: RecordTypeSchema, description: 'Objects only' },
  },
};

export const TableSchemaSchema: JsonSchema = {
  $id: 'TableSchema',
  ...strictObject({
    id: integer,
    name: { type: 'string' },
    kind: { type: 'string', enum: ['object', 'table'] },
    fields: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['id', 'name', 'type', 'format', 'required', 'unique', 'readOnly'],
        properties: {
          id: integer,
          name: { type: 'string' },
          type: { type: 'string' },
          format: nullableString,
          required: { type: 'boolean' },
          unique: { type: 'boolean' },
          readOnly: { type: 'boolean' },
          mode: { type: 'string', description: 'Select and relation fields' },
          relatedTableId: { type: 'integer', description: 'Relation fields' },
        },
      },
    },
  }),
};

export const RowSchema: JsonSchema = {
  $id: 'Row',
  ...strictObject({
    id: { type: 'string' },
    recordTypeId: { type: ['integer', 'null'] },
    createdAt: dateTime,
    updatedAt: dateTime,
    data: { type: 'object', description: 'Values keyed by field name' },
  }),
  example: {
    id: 'c0a8012e5f3b4d6e8a9b0c1d2e3f4a5b',
    recordTypeId: 1,
    createdAt: '2026-01-05T10:00:00.000Z',
    updatedAt: '2026-01-05T10:00:00.000Z',
    data: { Name: 'Acme renewal', Stage: 'Won', Amount: 1200 },
  },
};

export const RowPageSchema: JsonSchema = { $id: 'RowPage', ...pageSchema(RowSchema) };
export const RowListSchema: JsonSchema = { $id: 'RowList', ...strictObject({ agentry: { type: 'array', items: RowSchema } }) };
export const RowCountSchema: JsonSchema = { $id: 'RowCount', ...strictObject({ count: { type: 'integer', minimum: 0 } }), example: { count: 42 } };

export const FormulaPreviewResultSchema: JsonSchema = {
  $id: 'FormulaPreviewResult',
  ...strictObject({
    type: { type: 'string', description: 'The type the formula computes' },
    agentry: { type: 'array', items: strictObject({ id: { type: 'string' }, value: { description: 'The value, or null' } }) },
  }),
};
