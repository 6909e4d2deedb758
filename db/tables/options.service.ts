/** Options (tags) of select fields. Rows store option ids, so renaming an option keeps every value. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { DataField } from './data-field.entity.js';
import { FieldOption } from './field-option.entity.js';
import type { DataTable } from './data-table.entity.js';
import { lockTable, query, sqlOf } from './table-lookups.js';
import { fieldColumnName, qualified, rowTableName } from './ddl.js';
import { formulasReading, recheckDependents } from './formulas/formula-fields.service.js';
import { optionView } from './views.js';

export interface OptionInput {
  name: string;
  color?: string | null;
}

export interface OptionPatch {
  name?: string;
  color?: string | null;
  order?: number;
}

function requireSelect(field: DataField): void {
  if (field.type !== 'select') {
    throw new BadRequestError(`Field "${field.name}" is a ${field.type} field; only select fields have options`, 'fieldId');
  }
}

function checkName(name: string, siblings: FieldOption[], self?: FieldOption): string {
  const trimmed = name.trim();
  if (!trimmed) throw new BadRequestError('Option name must not be empty', [{ code: 'invalid', path: 'name', message: 'must not be empty' }]);
  if (siblings.some((o) => o !== self && o.name.toLowerCase() === trimmed.toLowerCase())) {
    throw new ConflictError(`An option named "${trimmed}" already exists on this field`);
  }
  return trimmed;
}

/**
 * A select field's default names options: keep it in step when options are renamed or removed. `before` are the
 * affected options as they were; `after` gives the current name of each one that remains.
 */
function followDefault(field: DataField, before: { id: number; name: string }[], after: Map<number, string>): void {
  const follow = (name: unknown): string | null => {
    if (typeof name !== 'string') return null;
    const option = before.find((o) => o.name === name) ?? before.find((o) => o.name.toLowerCase() === name.toLowerCase());
    return option ? (after.get(option.id) ?? null) : name;
  };
  const value = field.defaultValue;
  if (typeof value === 'string') field.defaultValue = follow(value);
  else if (Array.isArray(value)) {
    const names = value.map(follow).filter((n): n is string => n !== null);
    field.defaultValue = names.length ? names : null;
  }
}

export async function listOptions(em: EntityManager, field: DataField) {
  requireSelect(field);
  const options = await em.find(FieldOption, { field }, { orderBy: { position: 'asc', id: 'asc' } });
  return options.map((o) => optionView({ id: o.id, name: o.name, color: o.color ?? null, order: o.position }, field.id));
}

export async function createOption(em: EntityManager, field: DataField, input: OptionInput) {
  requireSelect(field);
  return em.transactional(async (tx) => {
    await lockTable(tx, field.table.id, 'schema');
    const siblings = await tx.find(FieldOption, { field });
    const option = tx.create(FieldOption, {
      field,
      name: checkName(input.name, siblings),
      color: input.color ?? null,
      position: siblings.reduce((max, o) => Math.max(max, o.position), -1) + 1,
    });
    await tx.flush();
    return optionView({ id: option.id, name: option.name, color: option.color ?? null, order: option.position }, field.id);
  });
}

/** An option of one of the table's select fields. */
export async function findOption(em: EntityManager, table: DataTable, optionId: number): Promise<FieldOption> {
  const option = await em.findOne(FieldOption, { id: optionId, field: { table } }, { populate: ['field'] });
  if (!option) throw new NotFoundError(`Option ${optionId} not found in "${table.name}"`);
  return option;
}

export async function updateOption(em: EntityManager, option: FieldOption, patch: OptionPatch) {
  return em.transactional(async (tx) => {
    await lockTable(tx, option.field.table.id, 'schema');
    const siblings = await tx.find(FieldOption, { field: option.field }, { orderBy: { position: 'asc', id: 'asc' } });
    // A formula may filter by this option's name (ifElse, applyIf): it must still compile after the rename.
    const accountId = option.field.table.account.id;
    const dependents = patch.name !== undefined ? await formulasReading(tx, accountId, [option.field.id]) : [];
    if (patch.name !== undefined) {
      const before = [{ id: option.id, name: option.name }];
      option.name = checkName(patch.name, siblings, option);
      followDefault(option.field, before, new Map([[option.id, option.name]]));
    }
    if (patch.color !== undefined) option.color = patch.color;
    if (patch.order !== undefined) {
      const others = siblings.filter((o) => o !== option);
      others.splice(Math.max(0, Math.min(patch.order, others.length)), 0, option);
      others.forEach((o, i) => (o.position = i));
    }
    await tx.flush();
    await recheckDependents(tx, accountId, dependents);
    return optionView({ id: option.id, name: option.name, color: option.color ?? null, order: option.position }, option.field.id);
  });
}

/** Removes the option from every row that holds it, then the option itself. */
export async function deleteOptions(em: EntityManager, field: DataField, optionIds: number[]): Promise<void> {
  if (!optionIds.length) return;
  const table = qualified(rowTableName(field.table.id));
  const column = fieldColumnName(field.id);
  const trx = sqlOf(em);
  if (field.metadata.mode === 'multiSelect') {
    await query(
      trx,
      `update ${table} set ?? = (select coalesce(array_agg(v), '{}') from unnest(??) v where v <> all(?::int[])) where ?? && ?::int[]`,
      [column, column, optionIds, column, optionIds],
    );
  } else {
    await query(trx, `update ${table} set ?? = null where ?? = any(?::int[])`, [column, column, optionIds]);
  }
  await em.nativeDelete(FieldOption, { id: { $in: optionIds }, field });
}

export async function deleteOption(em: EntityManager, option: FieldOption): Promise<void> {
  await em.transactional(async (tx) => {
    const field = await tx.findOneOrFail(DataField, { id: option.field.id }, { populate: ['table'] });
    await lockTable(tx, field.table.id, 'schema');
    const dependents = await formulasReading(tx, field.table.account.id, [field.id]);
    followDefault(field, [{ id: option.id, name: option.name }], new Map());
    await deleteOptions(tx, field, [option.id]);
    await tx.flush();
    await recheckDependents(tx, field.table.account.id, dependents);
  });
}

/** Replaces the options of a field with `tags` (field update): kept by id or name, new ones created, others removed. */
export async function replaceOptions(em: EntityManager, field: DataField, tags: { id?: number; name: string; color?: string | null }[]) {
  requireSelect(field);
  const current = await em.find(FieldOption, { field });
  const before = current.map((o) => ({ id: o.id, name: o.name }));
  const seen = new Set<string>();
  const kept: FieldOption[] = [];
  for (const [index, tag] of tags.entries()) {
    const name = tag.name?.trim();
    if (!name) throw new BadRequestError('Every tag needs a name', [{ code: 'invalid', path: `tags[${index}].name`, message: 'must not be empty' }]);
    if (seen.has(name.toLowerCase()))
      throw new BadRequestError(`Duplicate tag "${name}"`, [{ code: 'invalid', path: `tags[${index}].name`, message: 'duplicate name' }]);
    seen.add(name.toLowerCase());
    const match = current.find((o) => (tag.id !== undefined ? o.id === tag.id : o.name.toLowerCase() === name.toLowerCase()));
    if (tag.id !== undefined && !match) {
      throw new BadRequestError(`Tag ${tag.id} is not an option of "${field.name}"`, [
        { code: 'not_found', path: `tags[${index}].id`, message: 'unknown option id' },
      ]);
    }
    const option = match ?? em.create(FieldOption, { field, name });
    option.name = name;
    if (tag.color !== undefined) option.color = tag.color;
    option.position = index;
    kept.push(option);
  }
  followDefault(field, before, new Map(kept.filter((o) => o.id !== undefined).map((o) => [o.id, o.name])));
  await deleteOptions(
    em,
    field,
    current.filter((o) => !kept.includes(o)).map((o) => o.id),
  );
  await em.flush();
}
