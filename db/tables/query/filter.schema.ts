/**
 * JSON Schemas of the query filter and sort, as the API validates them and the OpenAPI document publishes
 * them (draft 2020-12 subset shared by ajv 8 in strict mode and OpenAPI 3.1). The schema checks the shape; the
 * compilers (filter.ts, sort.ts) check fields, operators per type and values, with precise issue paths.
 */
import { FILTER_OPERATORS, OPERATOR_DESCRIPTIONS, OPERATORS_BY_TYPE } from './operators.js';
import { MAX_FILTER_CONDITIONS, MAX_FILTER_DEPTH } from './filter.js';
import { MAX_SORT_FIELDS } from './sort.js';
import { MAX_LIST_LENGTH } from './values.js';

type Schema = Record<string, unknown>;

const FIELD_REF_DESCRIPTION =
  'The field: its id (number), its name (string, case-insensitive), or a system field: `id`, `recordTypeId`, ' +
  '`createdAt`, `updatedAt` (exact spelling; system fields win over a field of the same name).';

const fieldRef = (): Schema => ({
  description: FIELD_REF_DESCRIPTION,
  oneOf: [{ type: 'integer' }, { type: 'string', minLength: 1 }],
});

const KIND_LABELS: Record<keyof typeof OPERATORS_BY_TYPE, string> = {
  string: 'string',
  avatar: 'avatar',
  number: 'number',
  boolean: 'boolean',
  date: 'date',
  dateOnly: 'dateOnly',
  'select:single': 'select (singleSelect)',
  'select:multi': 'select (multiSelect)',
  'relation:single': 'relation (single)',
  'relation:multi': 'relation (multi)',
  'entityRelation:single': 'entityRelation (single)',
  'entityRelation:multi': 'entityRelation (multi)',
  file: 'file',
  formula: 'formula',
  id: 'system `id`',
  recordTypeId: 'system `recordTypeId`',
  createdAt: 'system `createdAt`',
  updatedAt: 'system `updatedAt`',
};

const VALUE_FORMS =
  '`value` by field type: string/avatar a string; number a number (or a decimal string); boolean true/false; ' +
  'date and createdAt/updatedAt an ISO 8601 date-time with offset (`2024-05-01T09:30:00Z`) meaning that instant, ' +
  "or a date `YYYY-MM-DD` meaning that whole day in the field's time zone (UTC for system fields); dateOnly `YYYY-MM-DD`; " +
  'select an option name (case-insensitive; an option id is also accepted); relation and `id` row ids (24 hexadecimal ' +
  'characters); entityRelation user ids (numbers) for entityModel User, conversation ids (strings) for Conversation; ' +
  `recordTypeId a number. Array values hold at most ${MAX_LIST_LENGTH} items.`;

const OPERATOR_TABLE = [
  '| field type | operators |',
  '|---|---|',
  ...Object.entries(OPERATORS_BY_TYPE).map(([kind, operators]) => {
    const label = KIND_LABELS[kind as keyof typeof OPERATORS_BY_TYPE];
    return `| ${label} | ${operators.length ? operators.join(', ') : 'none (not filterable yet)'} |`;
  }),
].join('\n');

const OPERATOR_MEANINGS = FILTER_OPERATORS.map((op) => `- \`${op}\`: ${OPERATOR_DESCRIPTIONS[op]}`).join('\n');

const group = (key: 'and' | 'or'): Schema => ({
  type: 'object',
  description: key === 'and' ? 'Matches rows that match every filter of the list.' : 'Matches rows that match at least one filter of the list.',
  required: [key],
  additionalProperties: false,
  properties: {
    [key]: { type: 'array', minItems: 1, maxItems: MAX_FILTER_CONDITIONS, items: { $ref: '#/$defs/Filter' } },
  },
});

export const QueryFilterSchema: Schema = {
  $id: 'QueryFilter',
  description:
    'Filter of rows: a condition `{ "field", "operator", "value" }`, or a group `{ "and": [...] }` / ' +
    '`{ "or": [...] }` of filters, nested at most ' +
    `${MAX_FILTER_DEPTH} groups deep, with at most ${MAX_FILTER_CONDITIONS} conditions in all. ` +
    '`{}` matches every row. Example: `{ "and": [ { "field": "Status", "operator": "in", "value": ["Open", "Won"] }, ' +
    '{ "or": [ { "field": "Amount", "operator": "gte", "value": 1000 }, { "field": "createdAt", "operator": "after", ' +
    '"value": "2024-01-01" } ] } ] }`. "Not" operators (neq, notIn, notContains, hasNone) also match empty cells. ' +
    'Formula fields cannot be filtered yet. Invalid filters are answered with 400 `bad_request` whose ' +
    '`details.issues[].path` points into the filter (`filter.and[1].or[0].operator`).',
  // `{}` (no filter) is allowed at the root only. The union of And / Or / Condition is written as if/then/else
  // on the key present rather than oneOf, so a wrong filter gets the errors of its own branch ("operator is
  // required") instead of those of every branch.
  type: 'object',
  if: { maxProperties: 0 },
  else: { $ref: '#/$defs/Filter' },
  $defs: {
    Filter: {
      description: 'A group `{ "and": [...] }`, a group `{ "or": [...] }`, or a condition `{ field, operator, value }`.',
      type: 'object',
      if: { properties: { and: true }, required: ['and'] },
      then: { $ref: '#/$defs/And' },
      else: { if: { properties: { or: true }, required: ['or'] }, then: { $ref: '#/$defs/Or' }, else: { $ref: '#/$defs/Condition' } },
    },
    And: group('and'),
    Or: group('or'),
    Condition: {
      type: 'object',
      description: 'One condition on one field.',
      required: ['field', 'operator'],
      additionalProperties: false,
      properties: {
        field: fieldRef(),
        operator: {
          type: 'string',
          enum: [...FILTER_OPERATORS],
          description: `The comparison. Operators by field type:\n\n${OPERATOR_TABLE}\n\nMeanings:\n\n${OPERATOR_MEANINGS}`,
        },
        value: { description: `Operand of the operator; absent for isEmpty / isNotEmpty. ${VALUE_FORMS}` },
      },
    },
  },
};

export const QuerySortSchema: Schema = {
  $id: 'QuerySort',
  description:
    'Sort of rows: fields in order of precedence, each ascending (default) or descending; empty cells come last ' +
    'in both directions; rows that tie are ordered by id (creation order). Text sorts case-insensitively, select ' +
    'fields by the order of their options, relation fields by the target row id. Multi-valued fields (multi select, ' +
    'multi relation, multi entityRelation), file and formula fields cannot be sorted by. No sort means creation order.',
  type: 'array',
  maxItems: MAX_SORT_FIELDS,
  items: {
    type: 'object',
    required: ['field'],
    additionalProperties: false,
    properties: {
      field: fieldRef(),
      direction: { type: 'string', enum: ['asc', 'desc'], default: 'asc', description: 'asc (default) or desc' },
    },
  },
};
