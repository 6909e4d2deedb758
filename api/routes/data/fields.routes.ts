import { findField, findTable, loadFields } from '../../../db/tables/table-lookups.js';
import { updateField, type FieldPatch } from '../../../db/tables/field-update.service.js';
import { addField, deleteField, type FieldInput } from '../../../db/tables/fields.service.js';
import {
  createOption,
  deleteOption,
  findOption,
  listOptions,
  updateOption,
  type OptionInput,
  type OptionPatch,
} from '../../../db/tables/options.service.js';
import { fieldView } from '../../../db/tables/views.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DataField } from '../../../db/tables/data-field.entity.js';
import type { DataTable } from '../../../db/tables/data-table.entity.js';
import { paginate } from '../../pagination.js';
import type { RouteRegistry } from '../../route-registry.js';
import { previewFormula, type PreviewInput } from '../../../db/tables/formulas/formula-preview.service.js';
import {
  FieldCreateSchema,
  FieldPatchSchema,
  FormulaPreviewSchema,
  OptionCreateSchema,
  OptionPatchSchema,
  PageQuerySchema,
} from '../../schemas/data.schema.js';
import { nameParam, paramsWith, type DataSurface, schemaLock } from './surface.js';
import { FieldPageSchema, FieldSchema, FormulaPreviewResultSchema, OptionListSchema, OptionSchema } from '../../schemas/data-responses.schema.js';

async function describeField(em: EntityManager, table: DataTable, field: DataField) {
  const { entities, models } = await loadFields(em, table);
  const index = entities.findIndex((f) => f.id === field.id);
  return fieldView(entities[index]!, models[index]!);
}

export function fieldRoutes(api: RouteRegistry, s: DataSurface): void {
  const table = (em: EntityManager, accountId: number, name: string) => findTable(em, accountId, s.kind, name);
  api.resource<{ name: string; fieldId: number }>(`${s.base}/:name/fields/:fieldId`, async (em, accountId, p) =>
    findField(em, await table(em, accountId, p.name), p.fieldId),
  );
  api.resource<{ name: string; tagId: number }>(`${s.base}/:name/${s.optionsSegment}/:tagId`, async (em, accountId, p) =>
    findOption(em, await table(em, accountId, p.name), p.tagId),
  );
  api.add<unknown, { limit: number; cursor?: string }>({
    method: 'get',
    operationId: `list${s.noun}Fields`,
    path: `${s.base}/:name/fields`,
    scope: 'any',
    tag: s.tag,
    summary: 'Fields in display order',
    params: nameParam,
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [Field], nextCursor }', schema: FieldPageSchema } },
    handler: async ({ auth, em, params, query }) => {
      const { entities, models } = await loadFields(em, await table(em, auth.account.id, params.name));
      return paginate(
        entities.map((f, i) => fieldView(f, models[i]!)),
        query.limit,
        query.cursor,
      );
    },
  });
  api.add<FieldInput>({
    method: 'post',
    operationId: `create${s.noun}Field`,
    path: `${s.base}/:name/fields`,
    scope: 'U',
    tag: s.tag,
    summary: 'Adds a field (strict body; options are added afterwards through the options endpoint)',
    params: nameParam,
    body: FieldCreateSchema,
    status: 201,
    responses: { 201: { description: 'Field', schema: FieldSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const t = await table(em, auth.account.id, params.name);
      const field = await em.transactional((tx) => addField(tx, t, body));
      return describeField(em, t, field);
    },
  });
  api.add<PreviewInput>({
    method: 'post',
    operationId: `preview${s.noun}FieldFormula`,
    path: `${s.base}/:name/fields/preview-formula`,
    scope: 'any',
    tag: s.tag,
    summary: 'Evaluates a formula on existing rows (the first ones, or rowIds) before creating the field; same checks as a create',
    params: nameParam,
    body: FormulaPreviewSchema,
    responses: { 200: { description: '{ type, agentry: [{ id, value }] }', schema: FormulaPreviewResultSchema } },
    handler: async ({ auth, em, params, body }) => previewFormula(em, await table(em, auth.account.id, params.name), body),
  });
  api.add<FieldPatch, unknown, { name: string; fieldId: number }>({
    method: 'patch',
    operationId: `update${s.noun}Field`,
    path: `${s.base}/:name/fields/:fieldId`,
    scope: 'U',
    tag: s.tag,
    summary: 'Changes name, metadata, default, order, required, unique, type; `tags` replaces the options',
    params: paramsWith('fieldId'),
    body: FieldPatchSchema,
    responses: { 200: { description: 'Field', schema: FieldSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const t = await table(em, auth.account.id, params.name);
      return describeField(em, t, await updateField(em, t, await findField(em, t, params.fieldId), body));
    },
  });
  api.add<unknown, unknown, { name: string; fieldId: number }>({
    method: 'delete',
    operationId: `delete${s.noun}Field`,
    path: `${s.base}/:name/fields/:fieldId`,
    scope: 'U',
    tag: s.tag,
    summary: 'Deletes a field and its values',
    params: paramsWith('fieldId'),
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: schemaLock,
    handler: async ({ auth, em, params }) => {
      const t = await table(em, auth.account.id, params.name);
      const field = await findField(em, t, params.fieldId);
      await em.transactional((tx) => deleteField(tx, t, field));
    },
  });
  api.add<unknown, unknown, { name: string; fieldId: number }>({
    method: 'get',
    operationId: `list${s.noun}Field${s.option}s`,
    path: `${s.base}/:name/fields/:fieldId/${s.optionsSegment}`,
    scope: 'any',
    tag: s.tag,
    summary: 'Options of a select field',
    params: paramsWith('fieldId'),
    responses: { 200: { description: '{ agentry: [Option] }', schema: OptionListSchema } },
    handler: async ({ auth, em, params }) => {
      const t = await table(em, auth.account.id, params.name);
      return { agentry: await listOptions(em, await findField(em, t, params.fieldId)), nextCursor: null };
    },
  });
  api.add<OptionInput, unknown, { name: string; fieldId: number }>({
    method: 'post',
    operationId: `create${s.noun}Field${s.option}`,
    path: `${s.base}/:name/fields/:fieldId/${s.optionsSegment}`,
    scope: 'U',
    tag: s.tag,
    summary: 'Adds an option (name, color) to a select field',
    params: paramsWith('fieldId'),
    body: OptionCreateSchema,
    status: 201,
    responses: { 201: { description: 'Option', schema: OptionSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) => {
      const t = await table(em, auth.account.id, params.name);
      return createOption(em, await findField(em, t, params.fieldId), body);
    },
  });
  api.add<OptionPatch, unknown, { name: string; tagId: number }>({
    method: 'patch',
    operationId: `update${s.noun}Field${s.option}`,
    path: `${s.base}/:name/${s.optionsSegment}/:tagId`,
    scope: 'U',
    tag: s.tag,
    summary: 'Changes an option: name, color, order',
    params: paramsWith('tagId'),
    body: OptionPatchSchema,
    responses: { 200: { description: 'Option', schema: OptionSchema } },
    lock: schemaLock,
    handler: async ({ auth, em, params, body }) =>
      updateOption(em, await findOption(em, await table(em, auth.account.id, params.name), params.tagId), body),
  });
  api.add<unknown, unknown, { name: string; tagId: number }>({
    method: 'delete',
    operationId: `delete${s.noun}Field${s.option}`,
    path: `${s.base}/:name/${s.optionsSegment}/:tagId`,
    scope: 'U',
    tag: s.tag,
    summary: 'Deletes an option and removes it from every record',
    params: paramsWith('tagId'),
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: schemaLock,
    handler: async ({ auth, em, params }) => {
      await deleteOption(em, await findOption(em, await table(em, auth.account.id, params.name), params.tagId));
    },
  });
}
