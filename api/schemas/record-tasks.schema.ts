/** Bodies and answers of the task endpoints of Object records. */
import type { JsonSchema } from '../validation.js';
import { pageSchema, userRefSchema } from './common.schema.js';

const content = { type: 'string', minLength: 1, maxLength: 10_000, description: 'What is to be done' };
const dueDate = { type: ['string', 'null'], format: 'date-time', description: 'ISO date-time; null for none' };
const assigneeIds = { type: 'array', maxItems: 100, items: { type: 'integer', minimum: 1 }, description: 'Users of the account' };

export const RecordTaskCreateSchema: JsonSchema = {
  $id: 'RecordTaskCreate',
  type: 'object',
  required: ['content'],
  additionalProperties: false,
  properties: { content, dueDate, assigneeIds },
};

export const RecordTaskPatchSchema: JsonSchema = {
  $id: 'RecordTaskPatch',
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description: 'content, due date and/or assignees',
  properties: { content, dueDate, assigneeIds },
};

const task: JsonSchema = {
  type: 'object',
  required: [
    'id',
    'object',
    'rowId',
    'content',
    'dueDate',
    'assigneeIds',
    'status',
    'completedAt',
    'completedBy',
    'createdBy',
    'createdAt',
    'updatedAt',
  ],
  additionalProperties: false,
  properties: {
    id: { type: 'integer' },
    object: { type: 'string', description: 'Name of the Object' },
    rowId: { type: 'string', pattern: '^[0-9a-f]{24}$' },
    content: { type: 'string' },
    dueDate: { type: ['string', 'null'], format: 'date-time' },
    assigneeIds: { type: 'array', items: { type: 'integer' } },
    status: { type: 'string', enum: ['open', 'completed'] },
    completedAt: { type: ['string', 'null'], format: 'date-time' },
    completedBy: { ...userRefSchema, description: 'Who completed it; null while open' },
    createdBy: userRefSchema,
    createdAt: { type: 'string', format: 'date-time' },
    updatedAt: { type: 'string', format: 'date-time' },
  },
};

export const RecordTaskSchema: JsonSchema = { $id: 'RecordTask', ...task };

export const RecordTaskPageSchema: JsonSchema = pageSchema(task);
