/** Every route of the agents feature: agents and their settings, flows, variables, intents, analytics, and the account's tools, playbooks and knowledge bases. */
import type { AiProvider } from '../../../activities/ai/ai-provider.js';
import type { RouteRegistry } from '../../routes.js';
import { agentResourceRoutes } from './agent-resources.routes.js';
import { agentVariableRoutes } from './agent-variables.routes.js';
import { agentRoutes } from './agents.routes.js';
import { conversationRoutes } from './conversations.routes.js';
import { flowRoutes } from './flows.routes.js';
import { intentRoutes } from './intents.routes.js';

export function agentFeatureRoutes(api: RouteRegistry, ai: AiProvider | null): void {
  agentRoutes(api);
  agentVariableRoutes(api);
  intentRoutes(api, ai);
  flowRoutes(api);
  conversationRoutes(api);
  agentResourceRoutes(api);
}
