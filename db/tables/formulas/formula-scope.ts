/**
 * What a formula is compiled against: the tables it may read (`FormulaScope`), the row a node is evaluated on
 * (`RowContext`), and the compiler as the modules compiling parts of a formula see it (`FormulaContext`), so those
 * modules (formula-relations.ts, formula-output.ts) and the compiler that calls them import this, not each other.
 */
import type { Issue } from '../../../lib/errors.js';
import type { FieldModel } from '../types.js';
import type { FormulaNode } from './formula-nodes.js';
import type { Typed } from './formula-sql.js';

/** An Object or Table a formula reads through a relation. */
export interface RelatedTable {
  id: number;
  name: string;
  fields: FieldModel[];
}

/** A relation field of some table (possibly the formula's own) that points at the formula's table. */
export interface BackRelation {
  field: FieldModel;
  table: RelatedTable;
}

/** Everything a formula of one table may read. */
export interface FormulaScope {
  tableId: number;
  tableName: string;
  fields: FieldModel[];
  /** Targets of the table's relation fields, by table id. */
  related: Map<number, RelatedTable>;
  backRelations: BackRelation[];
}

/** The row a node is evaluated on: the formula's own row, or a related row (aggregate weights). */
export interface RowContext {
  fields: FieldModel[];
  alias: string;
  tableName: string;
  own: boolean;
}

/** The compiler of one formula (formula-compiler.ts), as the modules compiling its parts use it. */
export interface FormulaContext {
  readonly scope: FormulaScope;
  readonly issues: Issue[];
  /** Field ids the formula reads. */
  readonly references: Set<number>;
  /** Records an issue at `path`; answers null, the value of a node that cannot compile. */
  issue(code: string, path: string, message: string): null;
  /** A fresh alias for a table inside a subquery. */
  alias(base: string): string;
  /** A query filter over the rows of `ctx`, as a SQL condition (false when it has issues). */
  filter(filter: unknown, ctx: RowContext, path: string): { sql: string; bindings: unknown[] };
  /** The value of a field of the row of `ctx`, named by a bare name or a system field. */
  readField(name: string, ctx: RowContext, path: string): Typed | null;
  /** A node of the formula, compiled on the row of `ctx`. */
  node(node: FormulaNode, path: string, ctx: RowContext): Typed | null;
  /** Issues for arguments that are not numbers; true when all are. */
  numeric(values: Typed[], path: string, what: string): boolean;
}
