/**
 * The provider side of EXTERNAL_TRIGGER nodes: subscribing a validated node, removing subscriptions. The trigger
 * provider is handed in by the caller (the API gets it from its dependencies); `undefined` means third-party
 * triggers are not configured, which only matters when a subscription has to be made or removed.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { TriggerProvider, TriggerResource, TriggerResourceQuery } from '../../lib/triggers/trigger-provider.js';
import { BadRequestError } from '../../lib/errors.js';
import type { GraphNode } from '../../lib/graph/graph.js';
import { findConnectedAccount } from '../catalogs/integrations.service.js';
import { validateTriggerConfig } from '../catalogs/trigger-types.js';
import type { TriggerDeliveries } from '../../lib/triggers/delivery-signature.js';
import { newSubscriptionId } from './trigger-subscriptions.js';

export type { TriggerProvider };

export const TRIGGERS_NOT_CONFIGURED = 'third-party triggers are not configured (the server has no TRIGGER_PROVIDER_URL)';

/** The provider, or 400 saying what cannot be done without one; `path` names the request field at stake. */
export function requireTriggerProvider(triggers: TriggerProvider | undefined, action: string, path: string): TriggerProvider {
  if (!triggers) throw new BadRequestError(`${action}: ${TRIGGERS_NOT_CONFIGURED}`, [{ code: 'invalid', path, message: TRIGGERS_NOT_CONFIGURED }]);
  return triggers;
}

/** Gives a provider refusal (a 400 without issues) the request field it concerns; other errors pass unchanged. */
function atPath(path: string): (error: unknown) => never {
  return (error) => {
    if (error instanceof BadRequestError && !error.details)
      throw new BadRequestError(error.message, [{ code: 'invalid', path, message: error.message }]);
    throw error;
  };
}

export function isExternalTrigger(node: GraphNode | undefined): node is GraphNode {
  return node?.type === 'TRIGGER' && node.data.triggerType === 'EXTERNAL_TRIGGER';
}

/** The provider subscription a node holds, if any. */
export function subscriptionOf(node: GraphNode | undefined): string | undefined {
  const id = isExternalTrigger(node) ? node.data.connectedAccountTriggerId : undefined;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/**
 * Subscribes a node that passed validation. Answers the data to save: the config without platform-managed fields
 * and the new `connectedAccountTriggerId` (the provider's id), with agentry's id of the subscription (`indexId`).
 * With `deliveries`, the provider gets the callback URL naming `indexId` and the subscription's signing secret.
 * Nothing is subscribed when the provider refuses (400) or fails (502).
 */
export async function subscribeNode(
  em: EntityManager,
  accountId: number,
  node: GraphNode,
  triggers: TriggerProvider | undefined,
  deliveries?: TriggerDeliveries,
): Promise<{ data: GraphNode['data']; subscriptionId: string; indexId: string }> {
  const provider = requireTriggerProvider(triggers, 'EXTERNAL_TRIGGER nodes cannot be saved', 'data.triggerType');
  const slug = String(node.data.triggerSlug);
  const checked = validateTriggerConfig(slug, node.data.triggerConfig);
  if ('message' in checked) throw new BadRequestError(checked.message, 'data.triggerConfig'); // validated before; kept for safety
  const connected = await findConnectedAccount(em, accountId, node.data.connectedAccountId as number);
  if (!connected)
    throw new BadRequestError(`Connected account ${String(node.data.connectedAccountId)} not found`, [
      { code: 'not_found', path: 'data.connectedAccountId', message: `no connected account ${String(node.data.connectedAccountId)} in this account` },
    ]);
  const indexId = newSubscriptionId();
  const callback = deliveries && { callbackUrl: deliveries.callbackUrl(indexId), secret: deliveries.secret(indexId) };
  const { subscriptionId } = await provider
    .subscribe({ connectedAccountExternalId: connected.externalId, toolkit: connected.toolkit, slug, config: checked.config, ...callback })
    .catch(atPath('data'));
  return { data: { ...node.data, triggerConfig: checked.config, connectedAccountTriggerId: subscriptionId }, subscriptionId, indexId };
}

/** Removes subscriptions one after the other; the first failure is thrown (ones the provider forgot count as removed). */
export async function unsubscribeAll(triggers: TriggerProvider | undefined, subscriptionIds: string[], action: string, path: string): Promise<void> {
  if (!subscriptionIds.length) return;
  const provider = requireTriggerProvider(triggers, action, path);
  for (const id of subscriptionIds) await provider.unsubscribe(id).catch(atPath(path));
}

/** Best-effort removal of a subscription made for a change that was not saved after all. */
export async function discardSubscription(triggers: TriggerProvider | undefined, subscriptionId: string | undefined): Promise<void> {
  if (!triggers || !subscriptionId) return;
  try {
    await triggers.unsubscribe(subscriptionId);
  } catch {
    // The failure that made the change fail is the one to report.
  }
}

/** Resources of a connected account that a config field can name (`GET /integrations/trigger-resources`). */
export async function listTriggerResources(triggers: TriggerProvider | undefined, query: TriggerResourceQuery): Promise<Required<TriggerResource>[]> {
  const provider = requireTriggerProvider(triggers, 'Trigger resources cannot be listed', 'query.resourceType');
  const items = await provider.listResources(query).catch(atPath('query'));
  return items.map((r) => ({ id: r.id, name: r.name, hasChildren: r.hasChildren ?? false }));
}
