/**
 * Adding and removing fields: the metadata row and the physical column (or link table) change in one
 * transaction, so a failure leaves neither behind.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, type Issue } from '../../lib/errors.js';
import { DataField } from './data-field.entity.js';
import { DataView } from './data-view.entity.js';
import type { DataTable } from './data-table.entity.js';
import { findRecordType, findTableById, loadFields, lockTable, query, sqlOf, toFieldModel } from './table-lookups.js';
import { addFieldStorage, dropFieldStorage, qualified, rowTableName, syncSearch } from './ddl.js';
import { FIELD_TYPE_HANDLERS, isInternalOnlyType, validateFieldMetadata } from './field-types/index.js';
import { toDbValue } from './field-types/values.js';
import { checkFormula, refuseIfRead } from './formulas/formula-fields.service.js';
import { filterWithout, sortWithout } from './query/field-refs.js';
import { FIELD_TYPES, type FieldModel, type FieldType } from './types.js';

/** Body of a field create (SPEC.md "Field (column) of an Object or Table"). */
export interface FieldInput {
  name: string;
  type: string;
  metadata?: unknown;
  required?: boolean;
  unique?: boolean;
  defaultValue?: unknown;
  record_type_id?: number | null;
  options?: unknown;
  tags?: unknown;
}

export function checkFieldType(type: string, path = 'type'): FieldType {
  if (isInternalOnlyType(type)) {
    throw new BadRequestError(`Field type "${type}" is internal-only and cannot be created`, [
      { code: 'invalid', path, message: `"${type}" is an internal-only field type` },
    ]);
  }
  if (!(FIELD_TYPES as readonly string[]).includes(type)) {
    throw new BadRequestError(`Unknown field type "${type}"`, [{ code: 'invalid', path, message: `must be one of ${FIELD_TYPES.join(', ')}` }]);
  }
  return type as FieldType;
}

export function checkFieldName(name: string, taken: DataField[], self?: DataField): string {
  const trimmed = name.trim();
  if (!trimmed) throw new BadRequestError('Field name must not be empty', [{ code: 'invalid', path: 'name', message: 'must not be empty' }]);
  const clash = taken.find((f) => f !== self && f.name.toLowerCase() === trimmed.toLowerCase());
  if (clash) throw new ConflictError(`A field named "${clash.name}" already exists`);
  return trimmed;
}

/** Cross-resource checks of relation metadata: the related table and its display column must exist. */
async function checkRelationTarget(em: EntityManager, accountId: number, metadata: Record<string, unknown>): Promise<DataTable> {
  const target = await findTableById(em, accountId, Number(metadata.relatedTableId));
  if (!target) {
    throw new BadRequestError(`Related table ${metadata.relatedTableId} not found`, [
      { code: 'not_found', path: 'metadata.relatedTableId', message: `no Object or Table ${metadata.relatedTableId} in this account` },
    ]);
  }
  const targetFields = await loadFields(em, target);
  if (!targetFields.entities.some((f) => f.id === Number(metadata.displayColumn))) {
    throw new BadRequestError(`Display column ${metadata.displayColumn} not found in "${target.name}"`, [
      { code: 'not_found', path: 'metadata.displayColumn', message: `no field ${metadata.displayColumn} in "${target.name}"` },
    ]);
  }
  return target;
}

/** Validates a default value against the field; returns the stored (API-form) default. */
export function checkDefault(model: FieldModel, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  if (!FIELD_TYPE_HANDLERS[model.type].allowsDefault) {
    throw new BadRequestError(`${model.type} fields cannot have a default value`, [
      { code: 'invalid', path: 'defaultValue', message: `not allowed for ${model.type} fields` },
    ]);
  }
  const converted = toDbValue(model, value, { now: new Date() });
  if (!converted.ok) {
    throw new BadRequestError(`Invalid defaultValue: ${converted.message}`, [{ code: 'invalid', path: 'defaultValue', message: converted.message }]);
  }
  return value;
}

/** Creates a field and its storage inside the caller's transaction; returns its model. */
export async function addField(em: EntityManager, table: DataTable, input: FieldInput): Promise<DataField> {
  if (input.options !== undefined || input.tags !== undefined) {
    throw new BadRequestError('Select options cannot be created inline: create the field with metadata.mode, then add each option', [
      { code: 'invalid', path: input.options !== undefined ? 'options' : 'tags', message: 'options are created through the options endpoint' },
    ]);
  }
  const type = checkFieldType(input.type);
  await lockTable(em, table.id, 'schema');
  const existing = await loadFields(em, table);
  const name = checkFieldName(input.name, existing.entities);
  const { metadata, issues } = validateFieldMetadata(type, input.metadata);
  if (issues.length) throw new BadRequestError(`Invalid metadata: ${issues[0]!.path} ${issues[0]!.message}`, issues);
  const target = type === 'relation' ? await checkRelationTarget(em, table.account.id, metadata) : undefined;
  if (type === 'formula') await checkFormula(em, table, existing.models, metadata);

  let recordType = null;
  if (input.record_type_id != null) {
    if (table.kind !== 'OBJECT')
      throw new BadRequestError('record_type_id applies to Object fields only', [invalid('record_type_id', 'Tables have no record types')]);
    recordType = await findRecordType(em, table, input.record_type_id).catch(() => {
      throw new BadRequestError(`Record type ${input.record_type_id} not found`, [
        { code: 'not_found', path: 'record_type_id', message: `no record type ${input.record_type_id} in "${table.name}"` },
      ]);
    });
  }

  const position = existing.entities.reduce((max, f) => Math.max(max, f.position), -1) + 1;
  const field = em.create(DataField, {
    table,
    name,
    type,
    metadata,
    required: input.required ?? false,
    unique: input.unique ?? false,
    recordType,
    position,
  });
  await em.flush();
  const model = toFieldModel(field, []);
  field.defaultValue = checkDefault(model, input.defaultValue);
  await em.flush();

  const trx = sqlOf(em);
  await addFieldStorage(trx, table.id, model, FIELD_TYPE_HANDLERS[type].columnType(metadata), target?.id);
  if (field.defaultValue !== null && model.column) {
    const value = toDbValue({ ...model, defaultValue: field.defaultValue }, field.defaultValue, { now: new Date() });
    if (value.ok)
      await query(trx, `update ${qualified(rowTableName(table.id))} set ?? = ? where ?? is null`, [model.column, value.value, model.column]);
  }
  if (type === 'string') await syncSearch(trx, table.id, [...existing.models, model], true);
  return field;
}

/** Deletes a field and its storage; refuses built-in fields and fields other tables display through a relation. */
export async function deleteField(em: EntityManager, table: DataTable, field: DataField): Promise<void> {
  if (field.isSystem) throw new BadRequestError(`"${field.name}" is a built-in field and cannot be deleted`, 'fieldId');
  await lockTable(em, table.id, 'schema');
  await refuseIfRead(em, table.account.id, field);
  const displayedBy = await em.find(DataField, { type: 'relation', table: { account: table.account } });
  const user = displayedBy.find((f) => Number(f.metadata.relatedTableId) === table.id && Number(f.metadata.displayColumn) === field.id);
  if (user) {
    throw new ConflictError(`"${field.name}" is the display column of the relation field ${user.id} ("${user.name}"); change that first`);
  }
  const fields = await loadFields(em, table);
  const model = fields.models.find((m) => m.id === field.id)!;
  // Views forget the field: its column, its filter conditions and its sort entries.
  for (const view of await em.find(DataView, { table })) {
    if (view.visibleFieldIds.includes(field.id)) view.visibleFieldIds = view.visibleFieldIds.filter((id) => id !== field.id);
    view.filter = filterWithout(view.filter, field.id);
    view.sort = sortWithout(view.sort, field.id);
  }
  em.remove(field);
  await em.flush();
  const trx = sqlOf(em);
  await dropFieldStorage(trx, table.id, model);
  if (model.type === 'string')
    await syncSearch(
      trx,
      table.id,
      fields.models.filter((m) => m.id !== field.id),
      true,
    );
}

export function invalid(path: string, message: string): Issue {
  return { code: 'invalid', path, message };
}
