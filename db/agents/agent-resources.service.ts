/**
 * Custom tools, playbooks and knowledge bases of an account (extensions: SPEC.md shows their ids, not their
 * endpoints). Each kind is one `AgentResource` with its own fields in `values`.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';
import { AgentResource, type AgentResourceKind } from './agent-resource.entity.js';

export type ResourceInput = { name: string } & Record<string, unknown>;

export function resourceView(r: AgentResource) {
  return { id: r.id, name: r.name, ...r.values, createdAt: r.createdAt.toISOString(), updatedAt: r.updatedAt.toISOString() };
}

export async function listResources(em: EntityManager, accountId: number, kind: AgentResourceKind): Promise<AgentResource[]> {
  return em.find(AgentResource, { account: accountId, kind }, { orderBy: { id: 'asc' } });
}

export async function findResource(em: EntityManager, accountId: number, kind: AgentResourceKind, id: number, what: string): Promise<AgentResource> {
  const resource = await em.findOne(AgentResource, { id, account: accountId, kind });
  if (!resource) throw new NotFoundError(`${what} ${id} not found`);
  return resource;
}

export async function createResource(em: EntityManager, accountId: number, kind: AgentResourceKind, input: ResourceInput): Promise<AgentResource> {
  const { name, ...values } = input;
  const resource = em.create(AgentResource, { account: em.getReference(Account, accountId), kind, name: name.trim(), values });
  await em.flush();
  return resource;
}

/** Replaces the fields sent; the others stay. */
export async function updateResource(em: EntityManager, resource: AgentResource, patch: Partial<ResourceInput>): Promise<AgentResource> {
  const { name, ...values } = patch;
  if (name !== undefined) resource.name = name.trim();
  resource.values = { ...resource.values, ...values };
  await em.flush();
  return resource;
}

export async function deleteResource(em: EntityManager, resource: AgentResource): Promise<void> {
  em.remove(resource);
  await em.flush();
}
