/** Declared variables of a workflow: capture targets and interpolation sources (`{name}`, case-sensitive). */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { WorkflowVariable, type Workflow } from '../entities/index.js';

/** Names usable inside `{…}`: letters, digits and underscores, not starting with a digit. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** Runtime names that declared variables may not take. */
const RESERVED = new Set(['trigger_payload']);

export interface VariableInput {
  name: string;
  description?: string;
}

export function variableView(v: WorkflowVariable) {
  return { id: v.id, name: v.name, description: v.description, createdAt: v.createdAt.toISOString(), updatedAt: v.updatedAt.toISOString() };
}

/** A usable name for a declared variable (400 naming `name` otherwise); `reserved` are the owner's built-ins. */
export function checkVariableName(name: string, reserved: ReadonlySet<string> = RESERVED): string {
  if (!VARIABLE_NAME.test(name)) {
    throw new BadRequestError('Variable names use letters, digits and underscores and do not start with a digit', 'name');
  }
  if (reserved.has(name)) throw new BadRequestError(`"${name}" is a built-in variable`, 'name');
  return name;
}

const checkName = (name: string) => checkVariableName(name);

export async function listVariables(em: EntityManager, workflow: Workflow): Promise<WorkflowVariable[]> {
  return em.find(WorkflowVariable, { workflow }, { orderBy: { id: 'asc' } });
}

export async function nameExists(em: EntityManager, workflow: Workflow, name: string): Promise<boolean> {
  return (await em.count(WorkflowVariable, { workflow, name })) > 0;
}

export async function createVariable(em: EntityManager, workflow: Workflow, input: VariableInput): Promise<WorkflowVariable> {
  const name = checkName(input.name);
  if (await nameExists(em, workflow, name)) throw new ConflictError(`A variable named "${name}" already exists`);
  const variable = em.create(WorkflowVariable, { workflow, name, description: input.description ?? '' });
  await em.flush();
  return variable;
}

export async function findVariable(em: EntityManager, workflow: Workflow, id: number): Promise<WorkflowVariable> {
  const variable = await em.findOne(WorkflowVariable, { id, workflow });
  if (!variable) throw new NotFoundError(`Variable ${id} not found`);
  return variable;
}

export async function updateVariable(em: EntityManager, variable: WorkflowVariable, patch: Partial<VariableInput>): Promise<WorkflowVariable> {
  if (patch.name !== undefined && patch.name !== variable.name) {
    const name = checkName(patch.name);
    if (await nameExists(em, variable.workflow, name)) throw new ConflictError(`A variable named "${name}" already exists`);
    variable.name = name;
  }
  if (patch.description !== undefined) variable.description = patch.description;
  await em.flush();
  return variable;
}

export async function deleteVariable(em: EntityManager, variable: WorkflowVariable): Promise<void> {
  em.remove(variable);
  await em.flush();
}
