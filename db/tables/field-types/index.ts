/** Registry of the field-type handlers and validation of a field's `metadata` (SPEC.md, Field). */
import { FIELD_TYPES, type FieldType, type FieldTypeHandler, type Issue } from '../types.js';
import { avatarField } from './avatar.field.js';
import { booleanField } from './boolean.field.js';
import { isPlainObject } from './common.js';
import { dateField } from './date.field.js';
import { dateOnlyField } from './date-only.field.js';
import { entityRelationField } from './entity-relation.field.js';
import { fileField } from './file.field.js';
import { formulaField } from './formula.field.js';
import { numberField } from './number.field.js';
import { relationField } from './relation.field.js';
import { INLINE_OPTIONS_MESSAGE, selectField } from './select.field.js';
import { stringField } from './string.field.js';
import { suggestKey } from './suggest.js';

export { INLINE_OPTIONS_MESSAGE };

export const FIELD_TYPE_HANDLERS: Record<FieldType, FieldTypeHandler> = {
  string: stringField,
  number: numberField,
  boolean: booleanField,
  date: dateField,
  dateOnly: dateOnlyField,
  select: selectField,
  relation: relationField,
  entityRelation: entityRelationField,
  file: fileField,
  avatar: avatarField,
  formula: formulaField,
};

/** Types that exist internally but cannot be created through the API. */
export const INTERNAL_ONLY_TYPES = ['autoIncrement', 'kanbanViewOrder'] as const;

export function isInternalOnlyType(name: string): boolean {
  return (INTERNAL_ONLY_TYPES as readonly string[]).includes(name);
}

export function isFieldType(name: unknown): name is FieldType {
  return typeof name === 'string' && (FIELD_TYPES as readonly string[]).includes(name);
}

function unknownKeyIssue(type: FieldType, key: string, known: readonly string[]): Issue {
  const path = `metadata.${key}`;
  if (type === 'select' && (key === 'options' || key === 'tags')) {
    return { code: 'invalid', path, message: INLINE_OPTIONS_MESSAGE };
  }
  const suggestion = suggestKey(key, known);
  let message = `unknown metadata key "${key}" for ${type} fields`;
  if (suggestion !== undefined) message += `; did you mean "${suggestion}"?`;
  else message += known.length > 0 ? `; allowed keys: ${known.join(', ')}` : `; ${type} fields take no metadata keys`;
  return { code: 'unknown_field', path, message };
}

/**
 * Validates the `metadata` of a field create or update. Omitted metadata takes the type's defaults; supplied
 * metadata must use only the type's keys and contain its required keys, then passes the type's value checks and
 * has the remaining defaults filled in. A key set to null counts as absent. The returned metadata is meaningful only when `issues` is empty.
 */
export function validateFieldMetadata(type: FieldType, metadata: unknown | undefined): { metadata: Record<string, unknown>; issues: Issue[] } {
  const handler = FIELD_TYPE_HANDLERS[type];
  if (metadata === undefined) {
    if (handler.defaultMetadata) return { metadata: structuredClone(handler.defaultMetadata), issues: [] };
    const message = `metadata is required for ${type} fields: ${handler.requiredMetadataKeys.join(', ')}`;
    return { metadata: {}, issues: [{ code: 'required', path: 'metadata', message }] };
  }
  if (!isPlainObject(metadata)) {
    return { metadata: {}, issues: [{ code: 'invalid', path: 'metadata', message: 'metadata must be an object' }] };
  }

  const issues: Issue[] = [];
  const known: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (!handler.metadataKeys.includes(key)) issues.push(unknownKeyIssue(type, key, handler.metadataKeys));
    else if (value !== null && value !== undefined) known[key] = value; // null leaves an optional key unset
  }
  const missing = handler.requiredMetadataKeys.filter((key) => known[key] === undefined);
  for (const key of missing) {
    issues.push({ code: 'required', path: `metadata.${key}`, message: `metadata.${key} is required for ${type} fields` });
  }
  if (missing.length > 0) return { metadata: known, issues };

  issues.push(...handler.checkMetadata(known));
  return { metadata: { ...structuredClone(handler.defaultMetadata ?? {}), ...known }, issues };
}
