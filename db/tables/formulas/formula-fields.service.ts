/**
 * Formula rules at save time: a formula field is compiled against the fields it reads before anything is
 * written, and a change to a field that formulas read (rename, type or metadata change, delete) is refused when
 * it would leave one of them unable to compile, so no formula is left to fail at read time.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, type Issue } from '../../../lib/errors.js';
import { DataField } from '../data-field.entity.js';
import type { DataTable } from '../data-table.entity.js';
import { findTablesById, loadFields } from '../table-lookups.js';
import type { FieldModel } from '../types.js';
import { compileFormula, type CompiledFormula } from './formula-compiler.js';
import { formulaScope, ROW_ALIAS } from './formula-source.js';

/** Field models read fresh from the database: inside a schema change the cached ones may be out of date. */
const freshModels = async (em: EntityManager, table: DataTable): Promise<FieldModel[]> => (await loadFields(em, table)).models;

/** Compiles a formula's metadata for `table`; 400 listing every issue (paths under `path`) when it breaks a rule. */
export async function checkFormula(
  em: EntityManager,
  table: DataTable,
  fields: FieldModel[],
  metadata: Record<string, unknown>,
  path = 'metadata',
): Promise<CompiledFormula> {
  const result = compileFormula(metadata, await formulaScope(em, table, fields, freshModels), ROW_ALIAS, path);
  if (!result.ok) throw new BadRequestError(`Invalid formula: ${result.issues[0]!.path} ${result.issues[0]!.message}`, result.issues);
  return result.formula;
}

interface Dependent {
  field: DataField;
  table: DataTable;
}

/** The formula fields of the account, outside `skip`, that read any of the fields `fieldIds` (of any table). */
export async function formulasReading(
  em: EntityManager,
  accountId: number,
  fieldIds: number[],
  skip: (formula: DataField) => boolean = () => false,
): Promise<Dependent[]> {
  const formulas = await em.find(DataField, { type: 'formula', table: { account: accountId } }, { populate: ['table'] });
  const dependents: Dependent[] = [];
  for (const formula of formulas.filter((f) => !fieldIds.includes(f.id) && !skip(f))) {
    const [table] = await findTablesById(em, accountId, [formula.table.id]);
    const scope = await formulaScope(em, table!, await freshModels(em, table!), freshModels);
    const result = compileFormula(formula.metadata, scope, ROW_ALIAS);
    if (result.ok && fieldIds.some((id) => result.formula.references.has(id))) dependents.push({ field: formula, table: table! });
  }
  return dependents;
}

function describe(dependent: Dependent): string {
  return `the formula field "${dependent.field.name}" of "${dependent.table.name}"`;
}

/** Refuses to delete a field that formulas read (409 naming the first of them). */
export async function refuseIfRead(em: EntityManager, accountId: number, field: DataField): Promise<void> {
  const [first] = await formulasReading(em, accountId, [field.id]);
  if (first) throw new ConflictError(`"${field.name}" is used by ${describe(first)}; change that formula first`);
}

/** Refuses to delete a table whose fields formulas of other tables read (through a back relation). */
export async function refuseIfTableRead(em: EntityManager, accountId: number, table: DataTable, fieldIds: number[]): Promise<void> {
  const [first] = await formulasReading(em, accountId, fieldIds, (formula) => formula.table.id === table.id);
  if (first) throw new ConflictError(`"${table.name}" is read by ${describe(first)}; change that formula first`);
}

/**
 * After a change to a field inside its transaction: every formula that read it must still compile, or the
 * change is refused (400 naming the formula and what broke) and rolled back with the transaction.
 */
export async function recheckDependents(em: EntityManager, accountId: number, dependents: Dependent[]): Promise<void> {
  for (const dependent of dependents) {
    const [table] = await findTablesById(em, accountId, [dependent.table.id]);
    const scope = await formulaScope(em, table!, await freshModels(em, table!), freshModels);
    const result = compileFormula(dependent.field.metadata, scope, ROW_ALIAS);
    if (!result.ok) {
      const issue: Issue = result.issues[0]!;
      throw new BadRequestError(`This change would break ${describe(dependent)} (${issue.path} ${issue.message}); change that formula first`, [
        { code: 'formula_dependency', path: 'fieldId', message: `is used by ${describe(dependent)}` },
      ]);
    }
  }
}
