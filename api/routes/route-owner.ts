/** What the routes declared once for every kind of owner (graphs, variables) know of the owner. */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { RouteInput } from '../route-registry.js';
import type { JsonSchema } from '../validation.js';

/** An owner (a workflow, an agent, a flow) of the documents of the routes, read as `T`. */
export interface RouteOwner<P, T> {
  tag: string;
  /** The owner in its routes' operation ids: `Workflow` (`listWorkflowVariables`), `Flow` (`publishFlow`). */
  noun: Capitalize<string>;
  /** Koa path of the owner, e.g. `/workflows/:workflowId`. */
  path: string;
  /** Schema of the owner's path parameters. */
  params: JsonSchema;
  /** The lock of the owner's documents (`RouteSpec.lock`). */
  lock: (params: P) => string;
  /** The owner of the account that `params` name (404 when there is none). */
  find(em: EntityManager, accountId: number, params: P): Promise<T>;
}

/** The owner a request names. */
export const ownerOf = <P, T>(owner: RouteOwner<P, T>, { auth, em, params }: RouteInput<unknown, unknown, P>): Promise<T> =>
  owner.find(em, auth.account.id, params);
