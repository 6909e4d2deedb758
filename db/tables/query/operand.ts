/**
 * Operands of filters and sorts: what a `field` reference (field id, field name, or system field) points to.
 * Shared by the filter and sort compilers.
 */
import { SYSTEM_COLUMNS, type FieldModel, type SystemField } from '../types.js';
import type { OperandKind } from './operators.js';

export interface Operand {
  kind: OperandKind;
  /** How messages name it: the field's name, or the system field. */
  label: string;
  /** The field, or null for a system field. */
  field: FieldModel | null;
  /** Physical column in the row table, or null (multi relation, formula). */
  column: string | null;
}

export type OperandResult = { ok: true; operand: Operand } | { ok: false; code: 'invalid' | 'not_found'; message: string };

const SYSTEM_FIELDS = Object.keys(SYSTEM_COLUMNS) as SystemField[];

export function isSystemField(name: string): name is SystemField {
  return (SYSTEM_FIELDS as string[]).includes(name);
}

/** The operand kind of a field: its type, split by mode where single and multi values differ. */
export function operandKind(field: FieldModel): OperandKind {
  const mode = field.metadata.mode;
  switch (field.type) {
    case 'select':
      return mode === 'multiSelect' ? 'select:multi' : 'select:single';
    case 'relation':
      return mode === 'multi' || field.linkTable ? 'relation:multi' : 'relation:single';
    case 'entityRelation':
      return mode === 'multi' ? 'entityRelation:multi' : 'entityRelation:single';
    case 'formula':
      // Read through a row source, a formula column filters and sorts like a stored column of its type.
      return field.formulaType ?? 'formula';
    default:
      return field.type;
  }
}

/**
 * Resolves a reference: a field id (number), a system field (`id`, `recordTypeId`, `createdAt`, `updatedAt`,
 * exact spelling, checked first), or a field name (case-insensitive).
 */
export function resolveOperand(ref: unknown, fields: readonly FieldModel[]): OperandResult {
  let field: FieldModel | undefined;
  if (typeof ref === 'number') {
    if (!Number.isSafeInteger(ref)) return { ok: false, code: 'invalid', message: 'must be a field id (integer) or a field name' };
    field = fields.find((f) => f.id === ref);
    if (!field) return { ok: false, code: 'not_found', message: `names no field of this table (id ${ref})` };
  } else if (typeof ref === 'string' && ref.length > 0) {
    if (isSystemField(ref)) {
      return { ok: true, operand: { kind: ref, label: ref, field: null, column: SYSTEM_COLUMNS[ref] } };
    }
    const wanted = ref.toLowerCase();
    field = fields.find((f) => f.name.toLowerCase() === wanted);
    if (!field) return { ok: false, code: 'not_found', message: `names no field of this table (${JSON.stringify(ref)})` };
  } else {
    return { ok: false, code: 'invalid', message: 'must be a field id (integer) or a field name' };
  }
  return { ok: true, operand: { kind: operandKind(field), label: field.name, field, column: field.column } };
}
