/** Conversion of row values between their API form and their stored form, for any field type. */
import type { FieldModel, ToDbResult, WriteContext } from '../types.js';
import { FIELD_TYPE_HANDLERS } from './index.js';

/** Whether the field's API value is a list (multi select, multi relation, multi entityRelation, file). */
export function isListValued(field: FieldModel): boolean {
  const { type, metadata } = field;
  if (type === 'file') return true;
  if (type === 'select') return metadata.mode === 'multiSelect';
  return (type === 'relation' || type === 'entityRelation') && metadata.mode === 'multi';
}

/**
 * Validates and converts one API value for storage. null and undefined become null (whether the field may be
 * empty is the caller's check); formula fields refuse every value, null included.
 */
export function toDbValue(field: FieldModel, value: unknown, ctx: WriteContext): ToDbResult {
  const handler = FIELD_TYPE_HANDLERS[field.type];
  if (field.type !== 'formula' && (value === null || value === undefined)) return { ok: true, value: null };
  return handler.toDb(value, field, ctx);
}

/** Converts a stored value (as node-postgres returns it) to its API form; empty lists come back as []. */
export function fromDbValue(field: FieldModel, raw: unknown): unknown {
  if (raw === null || raw === undefined) return isListValued(field) ? [] : null;
  // A formula's value reads like a stored value of its type (numbers from numeric text, ISO instants, dates).
  return FIELD_TYPE_HANDLERS[field.formulaType ?? field.type].fromDb(raw, field);
}

/** Keys added to the field's read representation (`timezone`, `time_format`, `extended_field`, …). */
export function promotedKeys(field: FieldModel): Record<string, unknown> {
  return FIELD_TYPE_HANDLERS[field.type].promotedKeys?.(field.metadata) ?? {};
}
