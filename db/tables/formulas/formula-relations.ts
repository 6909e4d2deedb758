/**
 * The nodes of a formula that read other tables: `[Relation].[Field]` lookups and `aggregate` nodes over direct
 * relations and back relations. Each compiles to one correlated subquery keyed by an indexed column (the related
 * row's id, a relation column or a link table's primary key or target index), so PostgreSQL evaluates it as part
 * of the statement that reads the rows — set-based, never one query per row from the application.
 */
import type { FieldModel } from '../types.js';
import { linkTableName, rowTableName } from '../ddl.js';
import { qualified } from '../query/fragment.js';
import type { FormulaContext, RelatedTable, RowContext } from './formula-scope.js';
import { parseFieldRef, type FormulaNode } from './formula-nodes.js';
import { dataTable, typed, type Typed } from './formula-sql.js';

interface Source {
  table: RelatedTable;
  alias: string;
  /** `from … where <join condition>` */
  sql: string;
  bindings: unknown[];
}

function relationOf(c: FormulaContext, name: string, ctx: RowContext, path: string): FieldModel | null {
  if (!ctx.own) return c.issue('invalid', path, "relations are read from the formula's own table only");
  const field = ctx.fields.find((f) => f.name.toLowerCase() === name.toLowerCase());
  if (!field) return c.issue('not_found', path, `names no field of "${ctx.tableName}" (${JSON.stringify(name)})`);
  if (field.type !== 'relation') return c.issue('not_relation', path, `"${field.name}" is a ${field.type} field, not a relation`);
  c.references.add(field.id);
  return field;
}

/** Rows linked from the current row through its relation field. */
function directSource(c: FormulaContext, relation: FieldModel, ctx: RowContext, path: string): Source | null {
  const table = c.scope.related.get(Number(relation.metadata.relatedTableId));
  if (!table) return c.issue('not_found', path, `the table related through "${relation.name}" no longer exists`);
  const alias = c.alias(`${ctx.alias}_r`);
  const rows = dataTable(rowTableName(table.id));
  if (relation.column) {
    return { table, alias, sql: '?? as ?? where ?? = ??', bindings: [rows, alias, qualified(alias, 'id'), qualified(ctx.alias, relation.column)] };
  }
  return throughLinks(c, ctx, table, alias, relation.id, 'target_id');
}

/**
 * Rows of `table` linked to the current row through the link table of the multi relation `relationId`; the
 * related rows are on the `related` side of the link table, the current row on the other.
 */
function throughLinks(
  c: FormulaContext,
  ctx: RowContext,
  table: RelatedTable,
  alias: string,
  relationId: number,
  related: 'source_id' | 'target_id',
): Source {
  const link = c.alias(`${ctx.alias}_k`);
  const own = related === 'target_id' ? 'source_id' : 'target_id';
  const rows = dataTable(rowTableName(table.id));
  return {
    table,
    alias,
    sql: '?? as ?? join ?? as ?? on ?? = ?? where ?? = ??',
    bindings: [
      dataTable(linkTableName(relationId)),
      link,
      rows,
      alias,
      qualified(alias, 'id'),
      qualified(link, related),
      qualified(link, own),
      qualified(ctx.alias, 'id'),
    ],
  };
}

/** Rows of another table whose relation field points at the current row. */
function backSource(c: FormulaContext, node: FormulaNode, ctx: RowContext, path: string): Source | null {
  let candidates = c.scope.backRelations;
  if (node.backRelationColumnId !== undefined) {
    candidates = candidates.filter((b) => b.field.id === node.backRelationColumnId);
    if (!candidates.length) return c.issue('not_found', `${path}.backRelationColumnId`, `is not a relation field pointing at "${ctx.tableName}"`);
  } else if (typeof node.relation === 'string') {
    const ref = (parseFieldRef(node.relation) ?? []).map((s) => s.toLowerCase());
    candidates = candidates.filter((b) =>
      ref.length === 2
        ? b.table.name === ref[0] && b.field.name.toLowerCase() === ref[1]
        : b.field.name.toLowerCase() === ref[0] || b.table.name === ref[0],
    );
    if (!candidates.length) return c.issue('not_found', `${path}.relation`, `names no relation pointing at "${ctx.tableName}"`);
  }
  if (candidates.length !== 1) {
    const message = candidates.length
      ? `${candidates.length} relations point at "${ctx.tableName}"; set backRelationColumnId`
      : `no relation points at "${ctx.tableName}"`;
    return c.issue(candidates.length ? 'ambiguous' : 'not_found', `${path}.backRelationColumnId`, message);
  }
  const { field, table } = candidates[0]!;
  c.references.add(field.id);
  const alias = c.alias(`${ctx.alias}_b`);
  const rows = dataTable(rowTableName(table.id));
  if (field.column) {
    return { table, alias, sql: '?? as ?? where ?? = ??', bindings: [rows, alias, qualified(alias, field.column), qualified(ctx.alias, 'id')] };
  }
  return throughLinks(c, ctx, table, alias, field.id, 'source_id');
}

const innerContext = (source: Source): RowContext => ({ fields: source.table.fields, alias: source.alias, tableName: source.table.name, own: false });

/** `[Relation].[Field]`: the field of the linked row (of a multi relation: of the first linked row by id). */
export function compileLookup(c: FormulaContext, relationName: string, fieldName: string, path: string, ctx: RowContext): Typed | null {
  const relation = relationOf(c, relationName, ctx, path);
  const source = relation && directSource(c, relation, ctx, path);
  if (!source) return null;
  const value = c.readField(fieldName, innerContext(source), path);
  if (!value) return null;
  const order = relation!.column ? '' : ` order by ${'??'} limit 1`;
  const orderBinding = relation!.column ? [] : [qualified(source.alias, 'id')];
  return typed(value.type, `(select ${value.sql} from ${source.sql}${order})`, ...value.bindings, ...source.bindings, ...orderBinding);
}

/** `aggregate`: count, sum, avg, min, max or sumProduct of a field over the related rows (optionally filtered). */
export function compileAggregate(c: FormulaContext, node: FormulaNode, path: string, ctx: RowContext): Typed | null {
  let source: Source | null;
  if (node.isBackRelation) {
    source = ctx.own ? backSource(c, node, ctx, path) : c.issue('invalid', path, "aggregates are computed on the formula's own table only");
  } else {
    const relation = relationOf(c, (parseFieldRef(node.relation as string) ?? [''])[0]!, ctx, `${path}.relation`);
    source = relation && directSource(c, relation, ctx, `${path}.relation`);
  }
  if (!source) return null;
  const inner = innerContext(source);
  const value = c.readField((parseFieldRef(node.field as string) ?? [''])[0]!, inner, `${path}.field`);
  const weights = ((node.arguments as FormulaNode[] | undefined) ?? []).map((arg, i) => c.node(arg, `${path}.arguments[${i}]`, inner));
  const filter = node.filter !== undefined ? c.filter(node.filter, inner, `${path}.filter`) : null;
  if (!value || weights.some((w) => w === null)) return null;
  const operation = node.operation as string;
  if (['sum', 'avg', 'sumProduct'].includes(operation) && value.type !== 'number') {
    return c.issue('not_numeric', `${path}.field`, `is a ${value.type} field; ${operation} accepts numeric inputs only`);
  }
  if ((operation === 'min' || operation === 'max') && value.type === 'boolean')
    return c.issue('invalid', `${path}.field`, `${operation} of a boolean field is not defined`);
  if (!c.numeric(weights as Typed[], path, 'sumProduct')) return null;
  const product = [value, ...(weights as Typed[])];
  const aggregate: Record<string, Typed> = {
    count: typed('number', `count(${value.sql})`, ...value.bindings),
    sum: typed('number', `coalesce(sum(${value.sql}), 0)`, ...value.bindings),
    avg: typed('number', `avg(${value.sql})`, ...value.bindings),
    min: typed(value.type, `min(${value.sql})`, ...value.bindings),
    max: typed(value.type, `max(${value.sql})`, ...value.bindings),
    sumProduct: typed('number', `coalesce(sum(${product.map((p) => p.sql).join(' * ')}), 0)`, ...product.flatMap((p) => p.bindings)),
  };
  const result = aggregate[operation]!;
  const where = filter ? ` and ${filter.sql}` : '';
  return typed(result.type, `(select ${result.sql} from ${source.sql}${where})`, ...result.bindings, ...source.bindings, ...(filter?.bindings ?? []));
}
