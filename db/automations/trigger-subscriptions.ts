/**
 * The index of trigger subscriptions (`trigger_subscriptions`): which account, automation and node hold each
 * subscription with the trigger provider. Graph edits and automation deletes keep it in step in their own
 * transactions; deliveries find their owner through it.
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Account } from '../accounts/account.entity.js';
import { TriggerSubscription } from './trigger-subscription.entity.js';
import { Automation } from './automation.entity.js';

/** agentry's id of a new subscription, made before subscribing so the callback URL handed to the provider names it. */
export function newSubscriptionId(): string {
  return `tsub_${randomBytes(16).toString('hex')}`;
}

export const SUBSCRIPTION_ID_PATTERN = /^tsub_[0-9a-f]{32}$/;

export interface IndexChange {
  /** A node's new subscription. */
  add?: { id: string; accountId: number; automationId: number; nodeId: string; providerSubscriptionId: string };
  /** Provider subscription ids the edit replaces or deletes. */
  remove?: string[];
}

/** Applies a graph edit's change to the index (on the edit's transaction). */
export async function updateSubscriptionIndex(tx: EntityManager, change: IndexChange): Promise<void> {
  if (change.remove?.length) await tx.nativeDelete(TriggerSubscription, { providerSubscriptionId: { $in: change.remove } });
  const add = change.add;
  if (!add) return;
  tx.create(TriggerSubscription, {
    id: add.id,
    account: tx.getReference(Account, add.accountId),
    automation: tx.getReference(Automation, add.automationId),
    nodeId: add.nodeId,
    providerSubscriptionId: add.providerSubscriptionId,
  });
  await tx.flush();
}

/** Forgets every subscription of a deleted automation. */
export async function unindexAutomation(tx: EntityManager, automationId: number): Promise<void> {
  await tx.nativeDelete(TriggerSubscription, { automation: automationId });
}

/** A subscription by agentry's id (the id in its callback URL), or null. */
export async function findSubscription(em: EntityManager, id: string): Promise<TriggerSubscription | null> {
  return SUBSCRIPTION_ID_PATTERN.test(id) ? em.findOne(TriggerSubscription, { id }) : null;
}

/** A subscription by the provider's id (a node's `connectedAccountTriggerId`), or null. */
export async function findProviderSubscription(em: EntityManager, providerSubscriptionId: string): Promise<TriggerSubscription | null> {
  return em.findOne(TriggerSubscription, { providerSubscriptionId });
}
