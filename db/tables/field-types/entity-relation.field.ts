import type { FieldTypeHandler, Issue } from '../types.js';
import { checkEnum, collect, describe, fail, invalid, ok } from './common.js';

export const ENTITY_MODELS = ['User', 'Conversation'] as const;
export const ENTITY_RELATION_MODES = ['single', 'multi'] as const;

const isUser = (metadata: Record<string, unknown>): boolean => metadata.entityModel !== 'Conversation';
const isMulti = (metadata: Record<string, unknown>): boolean => metadata.mode === 'multi';

const userId = (item: unknown): number | undefined => (Number.isSafeInteger(item) && (item as number) > 0 ? (item as number) : undefined);
const conversationId = (item: unknown): string | undefined => (typeof item === 'string' && item.trim() !== '' ? item : undefined);

function checkEntityMetadata(metadata: Record<string, unknown>): Issue[] {
  const issues = [...checkEnum(metadata, 'entityModel', ENTITY_MODELS), ...checkEnum(metadata, 'mode', ENTITY_RELATION_MODES)];
  const { displayField } = metadata;
  if (displayField !== undefined && !(typeof displayField === 'string' && displayField.trim() !== '')) {
    issues.push(invalid('displayField', 'displayField must be a non-empty string'));
  }
  return issues;
}

export const entityRelationField: FieldTypeHandler = {
  type: 'entityRelation',
  metadataKeys: ['entityModel', 'displayField', 'mode'],
  requiredMetadataKeys: ['entityModel', 'displayField', 'mode'],
  defaultMetadata: { entityModel: 'User', displayField: 'email', mode: 'single' },
  allowsDefault: false,
  checkMetadata: checkEntityMetadata,
  columnType: (metadata) => (isUser(metadata) ? 'integer' : 'text') + (isMulti(metadata) ? '[]' : ''),
  /** Single takes one id (or a list of at most one); multi takes a list of ids (or one id). */
  toDb(value, field) {
    const user = isUser(field.metadata);
    const result = user
      ? collect(value, userId, 'a user id (positive integer)')
      : collect(value, conversationId, 'a conversation id (non-empty string)');
    if (!result.ok) return fail(result.message);
    if (isMulti(field.metadata)) return ok(result.items);
    if (result.items.length > 1) return fail(`expected one id; got ${describe(value)}`);
    return ok(result.items[0] ?? null);
  },
  fromDb(raw, field) {
    const convert = (item: unknown): unknown => (isUser(field.metadata) ? Number(item) : String(item));
    if (isMulti(field.metadata)) return Array.isArray(raw) ? raw.map(convert) : [];
    return raw === null || raw === undefined ? null : convert(raw);
  },
  promotedKeys: (metadata) => ({
    entity_model: metadata.entityModel,
    display_field: metadata.displayField,
    relation_mode: metadata.mode,
  }),
};
