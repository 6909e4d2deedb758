/**
 * The adapter to the third-party trigger provider: the service that holds the connected accounts' credentials,
 * watches the third-party apps (Gmail, GitHub, Slack, …) and delivers their events. agentry subscribes an
 * EXTERNAL_TRIGGER node to one event of one connected account, removes that subscription again, and browses the
 * connected account's resources (labels, repositories, channels) to fill a node's `triggerConfig`.
 *
 * The API receives a provider through its dependencies (`AppDeps.triggers`) and hands it to the services as an
 * argument; `http-trigger-provider.ts` is the implementation that speaks HTTP. Errors are `AppError`s: a request
 * the provider refuses is a 400 naming the provider's message, an unreachable or failing provider a 502.
 */

export interface TriggerSubscriptionRequest {
  /** The provider's id of the connection (`ConnectedAccount.externalId`), not agentry's numeric id. */
  connectedAccountExternalId: string;
  /** Uppercase toolkit owning the event, e.g. GMAIL. */
  toolkit: string;
  /** Event slug, e.g. GMAIL_NEW_GMAIL_MESSAGE. */
  slug: string;
  /** The validated user-configurable settings of the subscription. */
  config: Record<string, unknown>;
  /** Where the provider delivers the events, when agentry gives one (`POST {callbackUrl}`, signed: delivery-signature.ts). */
  callbackUrl?: string;
  /** The secret the provider signs this subscription's deliveries with; given with `callbackUrl`. */
  secret?: string;
}

export interface TriggerResourceQuery {
  connectedAccountExternalId: string;
  /** A `resourceType` of the trigger catalog's config fields, e.g. github_repository. */
  resourceType: string;
  /** Id of the enclosing resource when browsing nested resources (a repository's owner, a pipeline's stages). */
  parent?: string;
}

/** One value a config field can take. */
export interface TriggerResource {
  id: string;
  name: string;
  /** true when the resource can be passed as `parent` to list what it contains. */
  hasChildren?: boolean;
}

export interface TriggerProvider {
  /** Creates a subscription and answers its id, stored as the node's `connectedAccountTriggerId`. */
  subscribe(request: TriggerSubscriptionRequest): Promise<{ subscriptionId: string }>;
  /** Removes a subscription; one the provider no longer knows counts as removed. */
  unsubscribe(subscriptionId: string): Promise<void>;
  listResources(query: TriggerResourceQuery): Promise<TriggerResource[]>;
}
