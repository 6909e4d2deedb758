/**
 * Declared variables of an automation or of an agent (its `VariableOwner`): capture targets and interpolation sources
 * (`{name}`, case-sensitive). Both kinds have one shape, kept in their own tables (`AutomationVariable`, `AgentVariable`).
 */
import type { EntityClass, FilterQuery, RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { GraphNode } from '../../lib/graph/graph.js';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { AutomationVariable } from './automation-variable.entity.js';
import { GraphSnapshot } from './graph-snapshot.entity.js';
import type { AgentVariable } from '../agents/agent-variable.entity.js';
import type { Automation } from './automation.entity.js';
import { draftGraph } from './snapshots.js';

export type Variable = AutomationVariable | AgentVariable;

/** A variable every graph of the owner may reference without declaring it. */
export interface BuiltInVariable {
  name: string;
  description: string;
}

/** What the variables service needs to know about the owner of variables: where they are, and its built-in names. */
export interface VariableOwner<V extends Variable = Variable> {
  entity: EntityClass<V>;
  /** The owner as its variables reference it: `{ automation }` or `{ agent }`. */
  ref: Partial<V>;
  /** Names declared variables may not take. */
  reserved: ReadonlySet<string>;
  /** The built-in variables as `GET .../variables/all` lists them. */
  builtIns(em: EntityManager): Promise<BuiltInVariable[]>;
  /** The owner's nodes (draft and live graphs) for which `uses` holds, named for a person; a used variable is not deleted. */
  nodesWhere(em: EntityManager, uses: (node: GraphNode) => boolean): Promise<string[]>;
}

export interface VariableInput {
  name: string;
  description?: string;
}

/** Names usable inside `{…}`: letters, digits and underscores, not starting with a digit. */
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,99}$/;

/** The variables of an automation: besides the declared ones, `{trigger_payload}` and one per node (its output). */
export function automationVariables(automation: Automation): VariableOwner<AutomationVariable> {
  return {
    entity: AutomationVariable,
    ref: { automation },
    reserved: new Set(['trigger_payload']),
    builtIns: async (em) => [
      { name: 'trigger_payload', description: 'The event that started the run' },
      ...(await draftGraph(em, automation)).graph.nodes.map((n) => ({ name: n.nodeId, description: `Output of ${n.alias} (${n.type})` })),
    ],
    nodesWhere: async (em, uses) => {
      const ids = [automation.draftSnapshotId, automation.liveSnapshotId ?? []].flat();
      const snapshots = await em.find(GraphSnapshot, { id: { $in: ids } });
      return [...new Set(snapshots.flatMap((s) => s.nodes.filter(uses).map((node) => `node ${node.nodeId} (${node.type})`)))];
    },
  };
}

export function variableView(v: Variable) {
  return { id: v.id, name: v.name, description: v.description, createdAt: v.createdAt.toISOString(), updatedAt: v.updatedAt.toISOString() };
}

/** A usable name for a declared variable (400 naming `name` otherwise); `reserved` are the owner's built-ins. */
export function checkVariableName(name: string, reserved: ReadonlySet<string>): string {
  if (!VARIABLE_NAME.test(name)) {
    throw new BadRequestError('Variable names use letters, digits and underscores and do not start with a digit', 'name');
  }
  if (reserved.has(name)) throw new BadRequestError(`"${name}" is a built-in variable`, 'name');
  return name;
}

export async function listVariables<V extends Variable>(em: EntityManager, owner: VariableOwner<V>): Promise<V[]> {
  return em.find(owner.entity, owner.ref as FilterQuery<V>, { orderBy: { id: 'asc' } as never });
}

/** The declared variables and then the built-in ones, as `GET .../variables/all` answers them. */
export async function allVariables(em: EntityManager, owner: VariableOwner) {
  const declared = (await listVariables(em, owner)).map((v) => ({ ...variableView(v), builtIn: false }));
  const builtIn = (await owner.builtIns(em)).map(({ name, description }) => ({ id: null, name, description, builtIn: true }));
  return [...declared, ...builtIn];
}

/** Whether a declared or a built-in variable has the name. */
export async function variableExists(em: EntityManager, owner: VariableOwner, name: string): Promise<boolean> {
  return owner.reserved.has(name) || (await em.count(owner.entity, { ...owner.ref, name } as FilterQuery<Variable>)) > 0;
}

async function freeName(em: EntityManager, owner: VariableOwner, name: string): Promise<string> {
  checkVariableName(name, owner.reserved);
  if (await variableExists(em, owner, name)) throw new ConflictError(`A variable named "${name}" already exists`);
  return name;
}

export async function createVariable<V extends Variable>(em: EntityManager, owner: VariableOwner<V>, input: VariableInput): Promise<V> {
  const name = await freeName(em, owner, input.name);
  const variable = em.create(owner.entity, { ...owner.ref, name, description: input.description ?? '' } as RequiredEntityData<V>);
  await em.flush();
  return variable;
}

export async function findVariable<V extends Variable>(em: EntityManager, owner: VariableOwner<V>, id: number): Promise<V> {
  const variable = await em.findOne(owner.entity, { ...owner.ref, id } as FilterQuery<V>);
  if (!variable) throw new NotFoundError(`Variable ${id} not found`);
  return variable;
}

export async function updateVariable<V extends Variable>(
  em: EntityManager,
  owner: VariableOwner<V>,
  variable: V,
  patch: Partial<VariableInput>,
): Promise<V> {
  if (patch.name !== undefined && patch.name !== variable.name) variable.name = await freeName(em, owner, patch.name);
  if (patch.description !== undefined) variable.description = patch.description;
  await em.flush();
  return variable;
}

/** Deletes a variable no node of the owner (draft or live) reads or captures into (409 naming the nodes otherwise). */
export async function deleteVariable<V extends Variable>(
  em: EntityManager,
  owner: VariableOwner<V>,
  variable: V,
  variablesUsed: (node: GraphNode) => string[],
): Promise<void> {
  const capturesInto = (node: GraphNode) =>
    Array.isArray(node.data.captureVariables) && (node.data.captureVariables as { id?: unknown }[]).some((c) => c?.id === variable.id);
  const users = await owner.nodesWhere(em, (node) => variablesUsed(node).includes(variable.name) || capturesInto(node));
  if (users.length) throw new ConflictError(`Variable "${variable.name}" is used by ${users.join(', ')}: change those nodes first`, { nodes: users });
  em.remove(variable);
  await em.flush();
}
