/** `/agents`: agents, their agent setting, theme, channel settings and deployment status (SPEC.md, Agents). */
import { checkAgentSetting } from '../../../nodes/checks/agent-setting.check.js';
import { CONFIG_KIND } from '../../../db/agents/agent-defaults.js';
import { allChannelSettings, channelOf, readConfig, writeConfig } from '../../../db/agents/agent-configs.service.js';
import {
  agentDetail,
  agentListItem,
  createAgent,
  defaultFlowId,
  deleteAgent,
  findAgent,
  listAgents,
  setDeployment,
  updateAgent,
  type AgentInput,
} from '../../../db/agents/agents.service.js';
import { paginate } from '../../pagination.js';
import type { RouteInput, RouteRegistry } from '../../route-registry.js';
import {
  AgentCreateSchema,
  AgentListItemSchema,
  AgentSchema,
  AgentSettingSchema,
  AgentSettingUpdateSchema,
  AgentUpdateSchema,
  AllChannelSettingsSchema,
  ChannelSettingsSchema,
  ChannelSettingsUpdateSchema,
  DeploymentSchema,
  ThemeSchema,
  ThemeUpdateSchema,
  page,
} from '../../schemas/agents.schema.js';
import { PageQuerySchema } from '../../schemas/data.schema.js';
import { agentLock, agentParams, type AgentId } from './agent-params.js';

const tag = 'Agents';
const params = agentParams();
const channelParams = agentParams([], ['channel']);
type Values = Record<string, unknown>;
type Read<P = AgentId> = RouteInput<unknown, unknown, P>;
type Channel = AgentId & { channel: string };

/** The documents these routes show, as their GETs answer them (also the ETag readers of their writes). */
async function readAgent({ auth, em, params }: Read) {
  const agent = await findAgent(em, auth.account.id, params.agentId);
  return agentDetail(agent, await defaultFlowId(em, agent));
}
const readSetting = async ({ auth, em, params }: Read) => readConfig(em, await findAgent(em, auth.account.id, params.agentId), CONFIG_KIND.setting);
const readTheme = async ({ auth, em, params }: Read) => readConfig(em, await findAgent(em, auth.account.id, params.agentId), CONFIG_KIND.theme);
async function readChannel({ auth, em, params }: Read<Channel>) {
  const agent = await findAgent(em, auth.account.id, params.agentId);
  return readConfig(em, agent, CONFIG_KIND.channel(channelOf(params.channel)));
}

export function agentRoutes(api: RouteRegistry): void {
  api.add<unknown, { limit: number; cursor?: string }>({
    method: 'get',
    operationId: 'listAgents',
    path: '/agents',
    scope: 'any',
    tag,
    summary: 'Agents of the account',
    query: PageQuerySchema,
    responses: { 200: { description: '{ agentry: [{ id, name, isOffline }], nextCursor }', schema: page(AgentListItemSchema) } },
    handler: async ({ auth, em, query }) => paginate((await listAgents(em, auth.account.id)).map(agentListItem), query.limit, query.cursor),
  });
  api.add<AgentInput>({
    method: 'post',
    operationId: 'createAgent',
    path: '/agents',
    scope: 'U',
    tag,
    summary:
      'Creates an agent, offline, with its defaults in one transaction: agent setting, theme, the four channel settings and the default flow "Start" (DRAFT) holding a START node',
    body: AgentCreateSchema,
    status: 201,
    responses: { 201: { description: 'Agent', schema: AgentSchema } },
    handler: async ({ auth, em, body }) => {
      const agent = await createAgent(em, auth.account.id, body);
      return agentDetail(agent, await defaultFlowId(em, agent));
    },
  });
  api.add<unknown, unknown, AgentId>({
    method: 'get',
    operationId: 'getAgent',
    path: '/agents/:agentId',
    scope: 'any',
    tag,
    summary: 'An agent (never its secrets)',
    params,
    responses: { 200: { description: 'Agent', schema: AgentSchema } },
    etag: true,
    handler: readAgent,
  });
  api.add<Partial<AgentInput>, unknown, AgentId>({
    method: 'put',
    operationId: 'updateAgent',
    path: '/agents/:agentId',
    scope: 'U',
    tag,
    summary: 'Updates name or description',
    params,
    body: AgentUpdateSchema,
    responses: { 200: { description: 'Agent', schema: AgentSchema } },
    lock: agentLock,
    etag: readAgent,
    handler: async ({ auth, em, params, body }) => {
      const agent = await updateAgent(em, await findAgent(em, auth.account.id, params.agentId), body);
      return agentDetail(agent, await defaultFlowId(em, agent));
    },
  });
  api.add<unknown, unknown, AgentId>({
    method: 'delete',
    operationId: 'deleteAgent',
    path: '/agents/:agentId',
    scope: 'U',
    tag,
    summary: 'Soft delete with its flows, variables and intents; workflows triggered by it keep firing for the other agents they name',
    params,
    status: 204,
    responses: { 204: { description: 'Deleted' } },
    lock: agentLock,
    handler: async ({ auth, em, params }) => deleteAgent(em, await findAgent(em, auth.account.id, params.agentId)),
  });
  api.add<{ isOffline: boolean }, unknown, AgentId>({
    method: 'put',
    operationId: 'updateAgentDeploymentStatus',
    path: '/agents/:agentId/deployment-status',
    scope: 'U',
    tag,
    summary:
      'Publishes (isOffline false) or pauses (isOffline true) the agent; an account whose credit balance is exhausted cannot take an agent online (409)',
    params,
    body: DeploymentSchema,
    responses: { 200: { description: 'Agent', schema: AgentSchema }, 409: { description: 'The credit balance is exhausted' } },
    lock: agentLock,
    etag: readAgent,
    handler: async ({ auth, em, params, body }) => {
      const agent = await setDeployment(em, await findAgent(em, auth.account.id, params.agentId), body.isOffline);
      return agentDetail(agent, await defaultFlowId(em, agent));
    },
  });
  settingsRoutes(api);
}

function settingsRoutes(api: RouteRegistry): void {
  const tag = 'Agent settings';
  api.add<unknown, unknown, AgentId>({
    method: 'get',
    operationId: 'getAgentSetting',
    path: '/agents/:agentId/agent-setting',
    scope: 'any',
    tag,
    summary: 'Model, instructions, tools, playbooks, knowledge bases, connected accounts, system tools',
    params,
    responses: { 200: { description: 'Agent setting', schema: AgentSettingSchema } },
    etag: true,
    handler: readSetting,
  });
  api.add<Values, unknown, AgentId>({
    method: 'put',
    operationId: 'updateAgentSetting',
    path: '/agents/:agentId/agent-setting',
    scope: 'U',
    tag,
    summary:
      'Updates the fields sent; aiModelId must be a TEXT model that is not deprecated and every id must name a resource of the account (400 not_found, nothing saved)',
    params,
    body: AgentSettingUpdateSchema,
    responses: { 200: { description: 'Agent setting', schema: AgentSettingSchema } },
    lock: agentLock,
    etag: readSetting,
    handler: async ({ auth, em, params, body }) =>
      writeConfig(em, await findAgent(em, auth.account.id, params.agentId), CONFIG_KIND.setting, body, checkAgentSetting),
  });
  api.add<unknown, unknown, AgentId>({
    method: 'get',
    operationId: 'getAgentTheme',
    path: '/agents/:agentId/theme',
    scope: 'any',
    tag,
    summary: 'Texts and colours of the chat widget',
    params,
    responses: { 200: { description: 'Theme', schema: ThemeSchema } },
    etag: true,
    handler: readTheme,
  });
  api.add<Values, unknown, AgentId>({
    method: 'put',
    operationId: 'updateAgentTheme',
    path: '/agents/:agentId/theme',
    scope: 'U',
    tag,
    summary: 'Updates the fields sent (colours #rgb, #rrggbb or #rrggbbaa)',
    params,
    body: ThemeUpdateSchema,
    responses: { 200: { description: 'Theme', schema: ThemeSchema } },
    lock: agentLock,
    etag: readTheme,
    handler: async ({ auth, em, params, body }) => writeConfig(em, await findAgent(em, auth.account.id, params.agentId), CONFIG_KIND.theme, body),
  });
  api.add<unknown, unknown, AgentId>({
    method: 'get',
    operationId: 'listAgentChannelSettings',
    path: '/agents/:agentId/settings',
    scope: 'any',
    tag,
    summary: 'Settings of livechat and the messaging channels (messaging, instagram, facebook)',
    params,
    responses: { 200: { description: 'Settings by channel', schema: AllChannelSettingsSchema } },
    handler: async ({ auth, em, params }) => allChannelSettings(em, await findAgent(em, auth.account.id, params.agentId)),
  });
  api.add<unknown, unknown, Channel>({
    method: 'get',
    operationId: 'getAgentChannelSettings',
    path: '/agents/:agentId/settings/:channel',
    scope: 'any',
    tag,
    summary: 'Settings of one channel: livechat, messaging, instagram or facebook (another: 404)',
    params: channelParams,
    responses: { 200: { description: 'Channel settings', schema: ChannelSettingsSchema } },
    etag: true,
    handler: readChannel,
  });
  api.add<Values, unknown, Channel>({
    method: 'put',
    operationId: 'updateAgentChannelSettings',
    path: '/agents/:agentId/settings/:channel',
    scope: 'U',
    tag,
    summary: 'Updates the fields sent; enableIdle and idleSettings.idleMinutes govern CONVERSATION_IDLE triggers',
    params: channelParams,
    body: ChannelSettingsUpdateSchema,
    responses: { 200: { description: 'Channel settings', schema: ChannelSettingsSchema } },
    lock: agentLock,
    etag: readChannel,
    handler: async ({ auth, em, params, body }) => {
      const agent = await findAgent(em, auth.account.id, params.agentId);
      const channel = channelOf(params.channel);
      return writeConfig(em, agent, CONFIG_KIND.channel(channel), body, async (_em, _account, values) =>
        channel !== 'livechat' && 'allowedOrigins' in values
          ? [{ code: 'invalid', path: 'allowedOrigins', message: 'allowedOrigins belongs to the livechat channel only' }]
          : [],
      );
    },
  });
}
