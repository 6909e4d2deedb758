/**
 * Table tools on the record types a TOOLS_AI node selects: search, create and update records of the record type's
 * Table or Object, through the same row services as the API (row events, loop prevention and checks included).
 * Each tool call runs once per node execution (its answer recorded); a refused call is reported to the model.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { RecordType } from '../../../db/tables/record-type.entity.js';
import { fieldModels } from '../../../db/tables/table-lookups.js';
import { listRows } from '../../../db/tables/rows-query.service.js';
import { createRows, updateRow, type TableContext } from '../../../db/tables/rows.service.js';
import { AppError, NodeError } from '../../../lib/errors.js';
import type { ExecutionContext } from '../../node-module.js';
import { coerceRowValues, recordId } from '../coerce-row-values.js';
import { toolName, type RunnableTool } from './runnable-tool.js';

const valuesParam = (fieldList: string) => ({ type: 'object', description: `Field values by field name (${fieldList})` });

export async function tableTools(
  em: EntityManager,
  accountId: number,
  selected: { id: number }[],
  chain: number[] | undefined,
  context: Pick<ExecutionContext, 'onceFor'>,
): Promise<RunnableTool[]> {
  const tools: RunnableTool[] = [];
  for (const { id } of selected) {
    const recordType = await em.findOne(RecordType, { id, table: { account: accountId } }, { populate: ['table'] });
    if (!recordType) throw new NodeError(`Record type ${id} of this node no longer exists`, 'InvalidNode');
    const table = recordType.table;
    const fields = await fieldModels(em, table);
    const ctx: TableContext = { table, fields, chain };
    const what = `records of type "${recordType.name}" in "${table.displayName}"`;
    const fieldList = fields.map((f) => `${f.name}: ${f.type}`).join(', ');
    const refused = (error: unknown) => {
      if (error instanceof AppError && error.status < 500) return { error: error.message, details: error.details };
      if (error instanceof NodeError) return { error: error.message };
      throw error;
    };
    tools.push(
      {
        definition: {
          name: toolName('search', recordType.id, table.displayName),
          description: `Searches ${what} by text; answers at most 20 records`,
          parameters: { type: 'object', properties: { search: { type: 'string' } }, required: ['search'] },
        },
        // Recorded like the writes, so a step run again (a retry, a run from before steps) reads what the model read.
        run: (args, part) =>
          context
            .onceFor(part, (tx) => listRows(tx, ctx, { search: String(args.search ?? ''), recordTypeId: recordType.id, limit: 20 }))
            .catch(refused),
      },
      {
        definition: {
          name: toolName('create', recordType.id, table.displayName),
          description: `Creates one of the ${what}`,
          parameters: { type: 'object', properties: { values: valuesParam(fieldList) }, required: ['values'] },
        },
        run: (args, part) =>
          context
            .onceFor(
              part,
              async (tx) => (await createRows(tx, ctx, [{ values: coerceRowValues(fields, record(args.values)), recordTypeId: recordType.id }]))[0],
            )
            .catch(refused),
      },
      {
        definition: {
          name: toolName('update', recordType.id, table.displayName),
          description: `Changes field values of one of the ${what}`,
          parameters: { type: 'object', properties: { rowId: { type: 'string' }, values: valuesParam(fieldList) }, required: ['rowId', 'values'] },
        },
        run: (args, part) =>
          context
            .onceFor(part, (tx) => updateRow(tx, ctx, recordId(args.rowId), { values: coerceRowValues(fields, record(args.values)) }))
            .catch(refused),
      },
    );
  }
  return tools;
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
