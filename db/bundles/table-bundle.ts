/**
 * Tables and Objects in bundles: a table's schema as a bundle holds it (fields by name, their types, formats,
 * options and record types; a relation names the table it points at and its display field by name, never by id),
 * and its import: a table missing here is created, one that exists gains the fields, options and record types it
 * lacks; a field of another type here is a conflict, left as it is. A workflow bundle carries the tables its nodes
 * name the same way (their schema with `?tables=true`).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { sealBundle, type Bundle } from '../../lib/bundles/bundle-format.js';
import { AppError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';
import { DataField } from '../tables/data-field.entity.js';
import { DataTable } from '../tables/data-table.entity.js';
import type { FieldInput } from '../tables/fields.service.js';
import { addField } from '../tables/fields.service.js';
import { createOption } from '../tables/options.service.js';
import { RecordType } from '../tables/record-type.entity.js';
import { createRecordType } from '../tables/record-types.service.js';
import { findTable, loadFields } from '../tables/table-lookups.js';
import { createTable } from '../tables/tables.service.js';
import type { TableKind } from '../tables/types.js';
import { planItem, type ImportPlan, type ReferenceMaps } from './bundle-plan.js';

export interface BundledField {
  name: string;
  type: string;
  metadata: Record<string, unknown>;
  required: boolean;
  unique: boolean;
  defaultValue?: unknown;
  options?: { name: string; color: string | null }[];
  /** The record type the field belongs to (Objects), by name; absent: every record type. */
  recordType?: string;
}

export interface BundledTable {
  /** Its id where it was exported (nodes name it as `tableId`). */
  ref: number;
  kind: TableKind;
  name: string;
  displayName: string;
  description: string | null;
  recordTypes: { ref: number; name: string }[];
  /** The schema: absent when the bundle only names the table (a workflow exported without `tables=true`). */
  fields?: BundledField[];
}

const LABEL: Record<TableKind, string> = { TABLE: 'Table', OBJECT: 'Object' };

/** The table as a bundle holds it; `schema` adds its fields. System fields (of standard Objects) are left out. */
export async function bundledTable(em: EntityManager, table: DataTable, schema: boolean): Promise<BundledTable> {
  const recordTypes = await em.find(RecordType, { table }, { orderBy: { position: 'asc', id: 'asc' } });
  const section: BundledTable = {
    ref: table.id,
    kind: table.kind,
    name: table.name,
    displayName: table.displayName,
    description: table.description ?? null,
    recordTypes: recordTypes.map((rt) => ({ ref: rt.id, name: rt.name })),
  };
  if (!schema) return section;
  const { entities, models } = await loadFields(em, table);
  const related = async (metadata: Record<string, unknown>) => {
    const target = await em.findOne(DataTable, { id: Number(metadata.relatedTableId), account: table.account });
    const display = target && (await em.findOne(DataField, { id: Number(metadata.displayColumn), table: target }));
    const { relatedTableId: _id, displayColumn: _column, ...rest } = metadata;
    return { ...rest, relatedTable: target ? { kind: target.kind, name: target.name } : null, displayColumn: display?.name ?? null };
  };
  section.fields = [];
  for (const [i, f] of entities.entries()) {
    if (f.isSystem) continue;
    section.fields.push({
      name: f.name,
      type: f.type,
      metadata: f.type === 'relation' ? await related(f.metadata) : f.metadata,
      required: f.required,
      unique: f.unique,
      defaultValue: f.defaultValue ?? undefined,
      options: f.type === 'select' ? models[i]!.options.map((o) => ({ name: o.name, color: o.color })) : undefined,
      recordType: f.recordType?.name,
    });
  }
  return section;
}

/** `GET /tables/{name}/export`, `GET /objects/{name}/export`: the table's schema as a bundle of kind `table`. */
export async function exportTable(em: EntityManager, accountId: number, kind: TableKind, name: string): Promise<Bundle> {
  const table = await findTable(em, accountId, kind, name);
  const account = await em.findOneOrFail(Account, { id: accountId });
  return sealBundle('table', { source: { namespace: account.namespace, id: table.name }, table: await bundledTable(em, table, true) });
}

/** A bundled field as a field create takes it: a relation's table and display field found here by name. */
async function fieldInput(tx: EntityManager, table: DataTable, f: BundledField): Promise<FieldInput | string> {
  const { options: _options, recordType, ...input } = f;
  const recordTypeId = recordType ? (await tx.findOne(RecordType, { table, name: recordType }))?.id : undefined;
  if (f.type !== 'relation') return { ...input, record_type_id: recordTypeId };
  const { relatedTable, displayColumn, ...metadata } = f.metadata as { relatedTable?: { kind: TableKind; name: string }; displayColumn?: string };
  const target = relatedTable && (await tx.findOne(DataTable, { account: table.account, kind: relatedTable.kind, name: relatedTable.name }));
  if (!target)
    return `relates to ${relatedTable ? `${LABEL[relatedTable.kind]} "${relatedTable.name}"` : 'a table'}, which is not here: create it first`;
  const display = await tx.findOne(DataField, { table: target, name: displayColumn ?? '' });
  if (!display) return `shows field "${String(displayColumn)}" of "${target.name}", which it does not have`;
  return { ...input, record_type_id: recordTypeId, metadata: { ...metadata, relatedTableId: target.id, displayColumn: display.id } };
}

/** Adds what the table lacks of the bundled schema; answers what changed, and names conflicts in the plan. */
async function addMissing(tx: EntityManager, table: DataTable, t: BundledTable, plan: ImportPlan): Promise<string[]> {
  const changes: string[] = [];
  const label = `${LABEL[t.kind]} "${t.name}"`;
  const here = new Set((await tx.find(RecordType, { table })).map((rt) => rt.name));
  for (const rt of t.kind === 'OBJECT' ? t.recordTypes : []) {
    if (here.has(rt.name)) continue;
    await createRecordType(tx, table, { name: rt.name });
    changes.push(`record type "${rt.name}" added`);
  }
  for (const [index, f] of (t.fields ?? []).entries()) {
    const { entities, models } = await loadFields(tx, table);
    const i = entities.findIndex((e) => e.name.toLowerCase() === f.name.toLowerCase());
    let field = entities[i];
    if (field && field.type !== f.type) {
      plan.conflicts.push(`${label}: field "${f.name}" is ${field.type} here, ${f.type} in the bundle: left as it is`);
      continue;
    }
    if (!field) {
      const input = await fieldInput(tx, table, f);
      if (typeof input === 'string') {
        plan.conflicts.push(`${label}: field "${f.name}" ${input}: left out`);
        continue;
      }
      field = await addField(tx, table, input).catch((error: unknown) => {
        if (error instanceof AppError) error.message = `${label}: fields[${index}] "${f.name}": ${error.message}`;
        throw error;
      });
      changes.push(`field "${f.name}" (${f.type}) added`);
    }
    const options = new Set((i >= 0 ? models[i]!.options : []).map((o) => o.name));
    for (const o of f.options ?? []) {
      if (options.has(o.name)) continue;
      await createOption(tx, field, o);
      if (i >= 0) changes.push(`option "${o.name}" of "${f.name}" added`);
    }
  }
  return changes;
}

/**
 * Puts a bundled table here: found by kind and name, it gains what it lacks of the bundled schema (an update); missing,
 * it is created from the schema, or listed under `connect` when the bundle only names it. Maps its id and its record
 * types' ids for the graphs that name them; answers the table, or null when it is missing.
 */
export async function importTable(tx: EntityManager, accountId: number, t: BundledTable, plan: ImportPlan, maps: ReferenceMaps) {
  const label = `${LABEL[t.kind]} "${t.name}"`;
  let table = await tx.findOne(DataTable, { account: accountId, kind: t.kind, name: t.name });
  const item = { kind: t.kind, name: t.name, sourceId: t.ref };
  if (!table && !t.fields) {
    const reference = `table:${t.ref}`;
    if (reference in maps.mapping) return null;
    plan.connect.push({ reference, where: 'tables', message: `${label} is missing here: create it, or export with tables=true to carry its schema` });
    return null;
  }
  let changes: string[] | undefined;
  if (!table) {
    // An Object is made with a column (the first plain one); the others follow, as on an update.
    const plain = (t.fields ?? []).find((f) => f.type !== 'relation' && !f.recordType);
    const columns = t.kind === 'OBJECT' && plain ? [{ ...plain, options: undefined, recordType: undefined }] : [];
    table = await createTable(tx, accountId, t.kind, { name: t.name, displayName: t.displayName, description: t.description, columns });
    await addMissing(tx, table, t, plan);
  } else changes = t.fields ? await addMissing(tx, table, t, plan) : [];
  planItem(plan, `table:${t.ref}`, { ...item, id: table.id }, changes);
  maps.tables.set(t.ref, table.id);
  const recordTypes = await tx.find(RecordType, { table });
  for (const rt of t.recordTypes ?? []) {
    const found = recordTypes.find((r) => r.name === rt.name);
    if (found) maps.recordTypes.set(rt.ref, found.id);
  }
  return table;
}
