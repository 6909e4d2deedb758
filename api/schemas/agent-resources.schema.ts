/**
 * Custom tools, playbooks and knowledge bases (extensions: SPEC.md shows only the ids flows and agent settings use).
 * One description per kind gives its create, update and response schemas.
 */
import { HTTP_METHODS } from '../../nodes/api.node.js';
import type { JsonSchema } from '../validation.js';
import { KNOWLEDGE_LANGUAGES } from './knowledge.schema.js';

const name = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' };
const text = (maxLength: number) => ({ type: 'string', maxLength });

export interface ResourceSchemas {
  create: JsonSchema;
  update: JsonSchema;
  view: JsonSchema;
}

function schemasOf(id: string, fields: Record<string, JsonSchema>, required: string[], defaults: Record<string, unknown>): ResourceSchemas {
  const withDefaults = Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, k in defaults ? { ...v, default: defaults[k] } : v]));
  return {
    create: {
      $id: `${id}Create`,
      type: 'object',
      additionalProperties: false,
      required: ['name', ...required],
      properties: { name, ...withDefaults },
    },
    update: { $id: `${id}Update`, type: 'object', additionalProperties: false, properties: { name, ...fields } },
    view: {
      $id: id,
      type: 'object',
      required: ['id', 'name', 'createdAt', 'updatedAt'],
      properties: { id: { type: 'integer' }, name: { type: 'string' }, ...fields, createdAt: { type: 'string' }, updatedAt: { type: 'string' } },
    },
  };
}

export const CustomToolSchemas = schemasOf(
  'CustomTool',
  {
    description: text(5000),
    method: { enum: [...HTTP_METHODS] },
    url: { type: 'string', format: 'uri', maxLength: 2048, pattern: '^https?://' },
    headers: {
      type: 'array',
      maxItems: 50,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'value'],
        properties: { key: { type: 'string', minLength: 1, maxLength: 255 }, value: text(5000) },
      },
    },
    parameters: { type: 'object', maxProperties: 200, description: 'JSON Schema of the arguments the AI passes to the tool' },
  },
  ['url'],
  { description: '', method: 'POST', headers: [], parameters: { type: 'object', properties: {} } },
);

export const PlaybookSchemas = schemasOf('Playbook', { instructions: text(50000) }, [], { instructions: '' });

export const KnowledgeBaseSchemas = schemasOf(
  'KnowledgeBase',
  {
    description: text(5000),
    language: {
      enum: [...KNOWLEDGE_LANGUAGES],
      description: 'Text search configuration of its full-text index (a change indexes every document again)',
    },
    multiQuery: {
      type: 'boolean',
      description:
        "Multi-query retrieval: each question is also searched in 3 rewordings the account's default TEXT model writes (one AI call per " +
        'question, charged like any AI call); without an AI provider, or when the call fails, the question alone is searched',
    },
    documents: {
      type: 'array',
      maxItems: 200,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['title', 'content'],
        properties: { title: { type: 'string', minLength: 1, maxLength: 255 }, content: text(200000) },
      },
    },
  },
  [],
  { description: '', language: 'english', multiQuery: false, documents: [] },
);
