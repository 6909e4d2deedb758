/**
 * Values of a node's `rowData`, as interpolation produced them, made to fit the fields they are written to: a
 * captured variable is text ("42", "true", "[\"a\"]"), so text is converted where the field's type says what it
 * holds; a value of the right JSON type passes unchanged, and anything else is left for the data plane to refuse.
 */
import { resolveField } from '../../db/tables/row-values.js';
import type { FieldModel } from '../../db/tables/types.js';
import { parseJsonValue, toVariableString } from '../../lib/runtime/path.js';

const NUMERIC = /^\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*$/;

function coerce(field: FieldModel, value: unknown): unknown {
  switch (field.type) {
    case 'number':
      return typeof value === 'string' && NUMERIC.test(value) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    case 'string':
      // A number, flag or JSON value written to a text field is stored as its text (objects as JSON).
      return typeof value === 'string' ? value : toVariableString(value);
    default:
      // Multi-valued fields (select, relations, files) take arrays, which variables hold as JSON text.
      return typeof value === 'string' ? parseJsonValue(value) : value;
  }
}

/** `values` with each value of a known field converted for that field's type; unknown keys are kept as given. */
export function coerceRowValues(fields: FieldModel[], values: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([key, value]) => {
      const field = resolveField(fields, key);
      return [key, field && value !== null && value !== undefined ? coerce(field, value) : value];
    }),
  );
}

/** A node data value that names a record, as text. */
export const recordId = (value: unknown): string => (toVariableString(value) ?? '').trim();
