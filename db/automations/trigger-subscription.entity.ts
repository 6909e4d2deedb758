import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { Automation } from './automation.entity.js';

/**
 * The index of trigger subscriptions: one row per EXTERNAL_TRIGGER node of a workflow's draft that holds a
 * subscription with the trigger provider. A delivery names the row's `id` in its URL (`POST /trigger-deliveries/{id}`)
 * and reaches the owning account and workflow through this row instead of a scan of graph snapshots. Rows are
 * written and removed in the transactions that save and delete the nodes and workflows.
 */
export class TriggerSubscription {
  /** agentry's id of the subscription, `tsub_` + 32 hex digits, made before subscribing so the callback URL can carry it. */
  id!: string;
  account!: Account;
  automation!: Automation;
  /** The EXTERNAL_TRIGGER node holding the subscription. */
  nodeId!: string;
  /** The provider's id of the subscription: the node's `connectedAccountTriggerId`. */
  providerSubscriptionId!: string;
  createdAt: Opt<Date> = new Date();
}

export const TriggerSubscriptionSchema = new EntitySchema<TriggerSubscription>({
  class: TriggerSubscription,
  tableName: 'trigger_subscriptions',
  uniques: [{ name: 'trigger_subscriptions_provider_subscription_id_unique', properties: ['providerSubscriptionId'] }],
  indexes: [{ name: 'trigger_subscriptions_workflow_index', properties: ['automation'] }],
  properties: {
    id: { type: 'text', primary: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    automation: { kind: 'm:1', entity: () => Automation, fieldName: 'workflow_id', deleteRule: 'cascade' },
    nodeId: { type: 'text' },
    providerSubscriptionId: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
