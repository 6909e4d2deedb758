/**
 * Changing a field: name, metadata, required, unique, default, order, options (`tags`) and type. A type or
 * metadata change either converts the stored values safely or is refused with a 400: data is never lost silently.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError } from '../../lib/errors.js';
import type { DataField } from './data-field.entity.js';
import type { DataTable } from './data-table.entity.js';
import { loadFields, lockTable, query, sqlOf, toFieldModel } from './table-lookups.js';
import { qualified, rowTableName, setUnique, syncIndex, syncSearch } from './ddl.js';
import { FIELD_TYPE_HANDLERS, validateFieldMetadata } from './field-types/index.js';
import { checkDefault, checkFieldName, checkFieldType } from './fields.service.js';
import { checkFormula, formulasReading, recheckDependents } from './formulas/formula-fields.service.js';
import { replaceOptions } from './options.service.js';
import type { FieldModel, FieldType } from './types.js';

export interface FieldPatch {
  name?: string;
  type?: string;
  metadata?: unknown;
  required?: boolean;
  unique?: boolean;
  defaultValue?: unknown;
  order?: number;
  tags?: { id?: number; name: string; color?: string | null }[];
}

/** Keys whose change would need the stored values rewritten in ways we do not do. */
const FROZEN_METADATA: Partial<Record<FieldType, string[]>> = {
  relation: ['relatedTableId', 'mode'],
  entityRelation: ['entityModel', 'mode'],
};

/** Conversions of stored values between types (PostgreSQL `using` expressions), each safe or checked first. */
function conversion(from: FieldModel, to: FieldType, toMetadata: Record<string, unknown>): { using: string; check?: string } | null {
  const column = `"${from.column}"`;
  const scalar = ['number', 'boolean', 'date', 'dateOnly', 'avatar', 'string'];
  if (!from.column || !scalar.includes(from.type)) return null;
  if (to === 'string')
    return { using: from.type === 'date' ? `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')` : `${column}::text` };
  if (from.type === 'string' && to === 'number') {
    // No `?` in these checks: knex reads every `?` of raw SQL as a binding placeholder.
    return { using: `${column}::numeric`, check: `${column} is not null and ${column} !~ '^\\s*-{0,1}[0-9]+(\\.[0-9]+){0,1}\\s*$'` };
  }
  if (from.type === 'string' && to === 'avatar') return { using: column, check: `${column} is not null and ${column} !~ '^https{0,1}://'` };
  if (from.type === 'dateOnly' && to === 'date')
    return { using: `${column}::timestamp at time zone '${String(toMetadata.timezone ?? 'UTC').replace(/'/g, '')}'` };
  if (from.type === 'number' && to === 'boolean') return { using: `${column} <> 0` };
  return null;
}

/** A kept default after a type change, converted as the stored values are (number ↔ text, number → boolean). */
function defaultForType(value: unknown, type: FieldType): unknown {
  if (type === 'string' && (typeof value === 'number' || typeof value === 'boolean')) return String(value);
  if (type === 'number' && typeof value === 'string' && /^\s*-?[0-9]+(\.[0-9]+)?\s*$/.test(value)) return Number(value);
  if (type === 'boolean' && typeof value === 'number') return value !== 0;
  return value;
}

async function changeType(
  em: EntityManager,
  table: DataTable,
  field: DataField,
  model: FieldModel,
  type: FieldType,
  metadata: Record<string, unknown>,
): Promise<void> {
  if (field.isSystem) throw new BadRequestError(`"${field.name}" is a built-in field; its type cannot change`, 'type');
  const plan = conversion(model, type, metadata);
  const columnType = FIELD_TYPE_HANDLERS[type].columnType(metadata);
  if (!plan || !columnType) {
    throw new BadRequestError(`Changing "${field.name}" from ${model.type} to ${type} is not supported: create a new field and copy the values`, [
      { code: 'invalid', path: 'type', message: `no safe conversion from ${model.type} to ${type}` },
    ]);
  }
  const trx = sqlOf(em);
  const rows = qualified(rowTableName(table.id));
  if (plan.check) {
    const [bad] = await query<{ count: number }>(trx, `select count(*)::int as count from ${rows} where ${plan.check}`);
    if (bad!.count > 0) {
      throw new BadRequestError(`${bad!.count} values of "${field.name}" cannot be converted to ${type}; fix or clear them first`, [
        { code: 'invalid', path: 'type', message: `${bad!.count} values do not convert` },
      ]);
    }
  }
  await trx.raw(`alter table ${rows} alter column "${model.column}" type ${columnType} using ${plan.using}`);
  field.type = type;
}

/** Changes of select mode convert single values to one-element arrays and back (refused when a row holds several). */
async function changeSelectMode(em: EntityManager, table: DataTable, model: FieldModel, mode: unknown): Promise<void> {
  const trx = sqlOf(em);
  const rows = qualified(rowTableName(table.id));
  const column = `"${model.column}"`;
  if (mode === 'multiSelect') {
    await trx.raw(`alter table ${rows} alter column ${column} type integer[] using case when ${column} is null then null else array[${column}] end`);
    return;
  }
  const [bad] = await query<{ count: number }>(trx, `select count(*)::int as count from ${rows} where cardinality(${column}) > 1`);
  if (bad!.count > 0) throw new BadRequestError(`${bad!.count} rows hold several options; single select would lose values`, 'metadata.mode');
  await trx.raw(`alter table ${rows} alter column ${column} type integer using ${column}[1]`);
}

export async function updateField(em: EntityManager, table: DataTable, field: DataField, patch: FieldPatch): Promise<DataField> {
  return em.transactional(async (tx) => {
    await lockTable(tx, table.id, 'schema');
    const all = await loadFields(tx, table);
    const model = all.models.find((m) => m.id === field.id)!;
    const reshapes = patch.name !== undefined || patch.type !== undefined || patch.metadata !== undefined || patch.tags !== undefined;
    const dependents = reshapes ? await formulasReading(tx, table.account.id, [field.id]) : [];
    if (patch.name !== undefined)
      field.name = checkFieldName(
        patch.name,
        all.entities,
        all.entities.find((f) => f.id === field.id),
      );
    const type = patch.type !== undefined ? checkFieldType(patch.type) : field.type;
    if (patch.metadata !== undefined || type !== field.type) {
      const { metadata, issues } = validateFieldMetadata(type, patch.metadata ?? (type === field.type ? field.metadata : undefined));
      if (issues.length) throw new BadRequestError(`Invalid metadata: ${issues[0]!.path} ${issues[0]!.message}`, issues);
      for (const key of type === field.type ? (FROZEN_METADATA[type] ?? []) : []) {
        if (JSON.stringify(metadata[key]) !== JSON.stringify(field.metadata[key])) {
          throw new BadRequestError(`metadata.${key} of a ${type} field cannot change: create a new field`, [
            { code: 'invalid', path: `metadata.${key}`, message: 'cannot change' },
          ]);
        }
      }
      if (type === 'formula')
        await checkFormula(
          tx,
          table,
          all.models.filter((m) => m.id !== field.id),
          metadata,
        );
      const retyped = type !== field.type || (type === 'select' && metadata.mode !== field.metadata.mode);
      if (type !== field.type) await changeType(tx, table, field, model, type, metadata);
      else if (type === 'select' && metadata.mode !== field.metadata.mode) await changeSelectMode(tx, table, model, metadata.mode);
      field.metadata = metadata;
      if (retyped) await syncIndex(sqlOf(tx), table.id, { ...model, type, metadata });
    }
    if (patch.tags !== undefined) await replaceOptions(tx, field, patch.tags);
    if (patch.required !== undefined) field.required = patch.required;
    if (patch.unique !== undefined && patch.unique !== field.unique) {
      await setUnique(sqlOf(tx), table.id, model, patch.unique).catch((error: { code?: string }) => {
        throw error.code === '23505' ? new ConflictError(`"${field.name}" has repeated values; it cannot become unique`) : error;
      });
      field.unique = patch.unique;
    }
    if (patch.order !== undefined) {
      // Move the field to `order` and renumber the others, as options and record types do.
      const others = all.entities.filter((f) => f.id !== field.id);
      others.splice(Math.max(0, Math.min(patch.order, others.length)), 0, field);
      others.forEach((f, i) => (f.position = i));
    }
    await tx.flush();
    // A kept default must still fit the changed field, or every record created without a value would be refused.
    const keptDefault = patch.defaultValue === undefined && (patch.metadata !== undefined || field.type !== model.type);
    if (patch.defaultValue !== undefined || (keptDefault && field.defaultValue != null)) {
      const fresh = (await loadFields(tx, table)).models.find((m) => m.id === field.id) ?? toFieldModel(field, []);
      field.defaultValue = checkDefault(fresh, keptDefault ? defaultForType(field.defaultValue, field.type) : patch.defaultValue);
      await tx.flush();
    }
    if (field.type !== model.type) await syncSearch(sqlOf(tx), table.id, (await loadFields(tx, table)).models, true);
    await recheckDependents(tx, table.account.id, dependents);
    return field;
  });
}
