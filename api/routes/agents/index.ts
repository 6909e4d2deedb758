/** Every route of the agents feature: agents and their settings, flows, variables, intents, conversations, analytics, and the account's tools, playbooks and knowledge bases. */
import type { Client } from '@temporalio/client';
import type { AiProvider } from '../../../integrations/ai/ai-provider.js';
import type { RouteRegistry } from '../../route-registry.js';
import { agentAnalyticsRoutes } from './agent-analytics.routes.js';
import { agentResourceRoutes } from './agent-resources.routes.js';
import { agentVariableRoutes } from './agent-variables.routes.js';
import { agentRoutes } from './agents.routes.js';
import { conversationRoutes } from './conversations.routes.js';
import { handoffRoutes } from './handoff.routes.js';
import { inboxRoutes } from './inbox.routes.js';
import { flowRoutes } from './flows.routes.js';
import { intentRoutes } from './intents.routes.js';
import { identitySecretRoutes } from './identity-secret.routes.js';
import type { SecretBox } from '../../../lib/secret-box.js';
import type { ConversationFeed } from '../../conversation-feed.js';

/** `temporal` and `taskQueue`: where conversations run (their workflows use the turns queue derived from it). */
export function agentFeatureRoutes(
  api: RouteRegistry,
  ai: AiProvider | null,
  temporal: Client,
  feed: ConversationFeed,
  taskQueue: string,
  secrets: SecretBox | null,
  temporalUiUrl?: string,
): void {
  agentRoutes(api);
  identitySecretRoutes(api, secrets);
  agentVariableRoutes(api);
  intentRoutes(api, ai);
  flowRoutes(api);
  agentAnalyticsRoutes(api);
  conversationRoutes(api, temporal, feed, taskQueue, temporalUiUrl);
  handoffRoutes(api, temporal);
  inboxRoutes(api, temporal, feed);
  agentResourceRoutes(api);
}
