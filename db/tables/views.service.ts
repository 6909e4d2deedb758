/** Saved views: a filter, a sort and the visible fields, per Object/Table and optionally per record type. */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { DataView } from './data-view.entity.js';
import type { DataTable } from './data-table.entity.js';
import type { RecordType } from './record-type.entity.js';
import { loadFields } from './table-lookups.js';
import { rowSource } from './formulas/formula-source.js';
import { compileFilter } from './query/filter.js';
import { compileSort } from './query/sort.js';
import { filterWithIds, sortWithIds } from './query/field-refs.js';
import { viewView } from './views.js';

export interface ViewInput {
  name: string;
  filter?: unknown;
  sort?: unknown[];
  visibleFieldIds?: number[];
}

export type ViewPatch = Partial<ViewInput> & { order?: number };

/**
 * Checks that the filter, sort and field ids make sense for the table (400 naming the problem otherwise), and
 * returns the input with field names in the filter and sort replaced by field ids.
 */
async function checkView<T extends Partial<ViewInput>>(em: EntityManager, table: DataTable, input: T): Promise<T> {
  // Read through the row source, so views filter and sort by formula columns like by stored ones.
  const { fields: models } = await rowSource(em, table, (await loadFields(em, table)).models);
  if (input.filter !== undefined && input.filter !== null) compileFilter(input.filter, models, { alias: 'r', path: 'filter' });
  if (input.sort !== undefined) compileSort(input.sort, models, 'r');
  const unknown = (input.visibleFieldIds ?? []).find((id) => !models.some((m) => m.id === id));
  if (unknown !== undefined) {
    throw new BadRequestError(`Field ${unknown} is not a field of "${table.name}"`, [
      { code: 'not_found', path: 'visibleFieldIds', message: `no field ${unknown} in "${table.name}"` },
    ]);
  }
  return {
    ...input,
    ...(input.filter !== undefined && input.filter !== null ? { filter: filterWithIds(input.filter, models) } : {}),
    ...(input.sort !== undefined ? { sort: sortWithIds(input.sort, models) } : {}),
  };
}

export async function listViews(em: EntityManager, table: DataTable, recordType?: RecordType) {
  const views = await em.find(DataView, recordType ? { table, recordType } : { table }, { orderBy: { position: 'asc', id: 'asc' } });
  return views.map(viewView);
}

export async function createView(em: EntityManager, table: DataTable, body: ViewInput, recordType?: RecordType) {
  if (!body.name.trim()) throw new BadRequestError('View name must not be empty', [{ code: 'invalid', path: 'name', message: 'must not be empty' }]);
  const input = await checkView(em, table, body);
  const siblings = await em.find(DataView, { table });
  const view = em.create(DataView, {
    table,
    recordType: recordType ?? null,
    name: input.name.trim(),
    filter: input.filter ?? null,
    sort: input.sort ?? [],
    visibleFieldIds: input.visibleFieldIds ?? [],
    position: siblings.reduce((max, v) => Math.max(max, v.position), -1) + 1,
  });
  await em.flush();
  return viewView(view);
}

export async function findView(em: EntityManager, table: DataTable, viewId: number, recordType?: RecordType): Promise<DataView> {
  const view = await em.findOne(DataView, recordType ? { id: viewId, table, recordType } : { id: viewId, table });
  if (!view) throw new NotFoundError(`View ${viewId} not found`);
  return view;
}

export async function updateView(em: EntityManager, table: DataTable, view: DataView, body: ViewPatch) {
  const patch = await checkView(em, table, body);
  if (patch.name !== undefined) {
    if (!patch.name.trim())
      throw new BadRequestError('View name must not be empty', [{ code: 'invalid', path: 'name', message: 'must not be empty' }]);
    view.name = patch.name.trim();
  }
  if (patch.filter !== undefined) view.filter = patch.filter;
  if (patch.sort !== undefined) view.sort = patch.sort;
  if (patch.visibleFieldIds !== undefined) view.visibleFieldIds = patch.visibleFieldIds;
  if (patch.order !== undefined) {
    // Move the view to `order` and renumber the others of the table, as options and record types do.
    const others = (await em.find(DataView, { table }, { orderBy: { position: 'asc', id: 'asc' } })).filter((v) => v !== view);
    others.splice(Math.max(0, Math.min(patch.order, others.length)), 0, view);
    others.forEach((v, i) => (v.position = i));
  }
  await em.flush();
  return viewView(view);
}

export async function deleteView(em: EntityManager, view: DataView): Promise<void> {
  em.remove(view);
  await em.flush();
}
