/** Record types of Objects. The default one cannot be renamed or deleted until another is promoted. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError } from '../../lib/errors.js';
import { DataField } from './data-field.entity.js';
import { RecordType } from './record-type.entity.js';
import type { DataTable } from './data-table.entity.js';
import { query, sqlOf } from './table-lookups.js';
import { qualified, rowTableName } from './ddl.js';
import { deleteField } from './fields.service.js';
import { recordTypeView } from './views.js';

export interface RecordTypeInput {
  name: string;
  description?: string | null;
  isDefault?: boolean;
}

export type RecordTypePatch = Partial<RecordTypeInput> & { order?: number };

function requireObject(table: DataTable): void {
  if (table.kind !== 'OBJECT') throw new BadRequestError('Only Objects have record types', 'name');
}

async function fieldIdsOf(em: EntityManager, table: DataTable, recordType: RecordType): Promise<number[]> {
  const fields = await em.find(DataField, { table, $or: [{ recordType: null }, { recordType }] }, { orderBy: { position: 'asc', id: 'asc' } });
  return fields.map((f) => f.id);
}

function checkName(name: string, siblings: RecordType[], self?: RecordType): string {
  const trimmed = name.trim();
  if (!trimmed) throw new BadRequestError('Record type name must not be empty', [{ code: 'invalid', path: 'name', message: 'must not be empty' }]);
  if (siblings.some((rt) => rt !== self && rt.name.toLowerCase() === trimmed.toLowerCase())) {
    throw new ConflictError(`A record type named "${trimmed}" already exists`);
  }
  return trimmed;
}

export async function listRecordTypes(em: EntityManager, table: DataTable) {
  requireObject(table);
  const recordTypes = await em.find(RecordType, { table }, { orderBy: { position: 'asc', id: 'asc' } });
  return Promise.all(recordTypes.map(async (rt) => recordTypeView(rt, await fieldIdsOf(em, table, rt))));
}

export async function describeRecordType(em: EntityManager, table: DataTable, recordType: RecordType) {
  return recordTypeView(recordType, await fieldIdsOf(em, table, recordType));
}

function promote(siblings: RecordType[], recordType: RecordType): void {
  for (const rt of siblings) rt.isDefault = rt === recordType;
}

export async function createRecordType(em: EntityManager, table: DataTable, input: RecordTypeInput) {
  requireObject(table);
  return em.transactional(async (tx) => {
    const siblings = await tx.find(RecordType, { table });
    const recordType = tx.create(RecordType, {
      table,
      name: checkName(input.name, siblings),
      description: input.description ?? null,
      position: siblings.reduce((max, rt) => Math.max(max, rt.position), -1) + 1,
    });
    if (input.isDefault) {
      // Clear the old default first: at most one default per table is a unique index.
      for (const rt of siblings) rt.isDefault = false;
      await tx.flush();
      recordType.isDefault = true;
    }
    await tx.flush();
    return describeRecordType(tx, table, recordType);
  });
}

export async function updateRecordType(em: EntityManager, table: DataTable, recordType: RecordType, patch: RecordTypePatch) {
  return em.transactional(async (tx) => {
    const siblings = await tx.find(RecordType, { table }, { orderBy: { position: 'asc', id: 'asc' } });
    const self = siblings.find((rt) => rt.id === recordType.id)!;
    if (patch.name !== undefined && patch.name.trim() !== self.name) {
      if (self.isDefault) throw new BadRequestError('The default record type cannot be renamed; promote another record type first', 'name');
      self.name = checkName(patch.name, siblings, self);
    }
    if (patch.isDefault === false && self.isDefault) {
      throw new BadRequestError('A record type stops being the default only when another one is promoted (isDefault: true)', 'isDefault');
    }
    if (patch.description !== undefined) self.description = patch.description;
    if (patch.order !== undefined) {
      const others = siblings.filter((rt) => rt !== self);
      others.splice(Math.max(0, Math.min(patch.order, others.length)), 0, self);
      others.forEach((rt, i) => (rt.position = i));
    }
    if (patch.isDefault && !self.isDefault) {
      for (const rt of siblings) rt.isDefault = false;
      await tx.flush();
      promote(siblings, self);
    }
    await tx.flush();
    return describeRecordType(tx, table, self);
  });
}

export async function deleteRecordType(em: EntityManager, table: DataTable, recordType: RecordType): Promise<void> {
  if (recordType.isDefault) throw new BadRequestError('The default record type cannot be deleted; promote another record type first', 'recordTypeId');
  await em.transactional(async (tx) => {
    const [row] = await query<{ count: number }>(
      sqlOf(tx),
      `select count(*)::int as count from ${qualified(rowTableName(table.id))} where record_type_id = ?`,
      [recordType.id],
    );
    const count = row!.count;
    if (count > 0) throw new ConflictError(`${count} records use the record type "${recordType.name}"; move them to another record type first`);
    // Fields scoped to the record type go with it, storage included (only their metadata rows would cascade).
    for (const field of await tx.find(DataField, { table, recordType })) await deleteField(tx, table, field);
    tx.remove(recordType);
    await tx.flush();
  });
}
