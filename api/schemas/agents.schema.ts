/** Request and response schemas of the /agents endpoints (agents, settings, theme, channels, variables, intents). */
import { IDLE_MINUTES } from '../../db/agents/agent-defaults.js';
import type { JsonSchema } from '../validation.js';
import { strictObject } from './common.schema.js';

const name = { type: 'string', minLength: 1, maxLength: 255, pattern: '\\S' };
const description = { type: ['string', 'null'], maxLength: 5000 };
const timestamp = { type: 'string', format: 'date-time' };
const ids = (what: string) => ({
  type: 'array',
  maxItems: 200,
  uniqueItems: true,
  items: { type: 'integer', minimum: 1, maximum: 2147483647 },
  description: `Ids of ${what} of the account`,
});
const colour = { type: 'string', pattern: '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$', description: '#rgb, #rrggbb or #rrggbbaa' };
const text = (maxLength: number) => ({ type: 'string', maxLength });

/** `{ agentry: [item], nextCursor }`. */
export const page = (item: JsonSchema): JsonSchema =>
  strictObject({ agentry: { type: 'array', items: item }, nextCursor: { type: ['string', 'null'] } });

export const AgentCreateSchema: JsonSchema = {
  $id: 'AgentCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name, description },
};
export const AgentUpdateSchema: JsonSchema = { $id: 'AgentUpdate', type: 'object', additionalProperties: false, properties: { name, description } };

export const AgentListItemSchema: JsonSchema = {
  $id: 'AgentListItem',
  ...strictObject({ id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, isOffline: { type: 'boolean' } }),
};

export const AgentSchema: JsonSchema = {
  $id: 'Agent',
  ...strictObject(
    {
      id: { type: 'string', format: 'uuid' },
      name: { type: 'string' },
      isOffline: { type: 'boolean' },
      description: { type: ['string', 'null'] },
      defaultFlowId: { type: ['integer', 'null'], description: 'The flow "Start" every conversation begins in' },
      createdAt: timestamp,
      updatedAt: timestamp,
    },
    'An agent; its widget secret and HMAC secret are never returned',
  ),
};

export const DeploymentSchema: JsonSchema = {
  $id: 'AgentDeployment',
  type: 'object',
  additionalProperties: false,
  required: ['isOffline'],
  properties: {
    isOffline: { type: 'boolean', description: 'true pauses the agent; false publishes it (refused with 409 while the credit balance is exhausted)' },
  },
};

const systemToolSettings = {
  type: 'object',
  additionalProperties: false,
  properties: {
    ...Object.fromEntries(['endConversation', 'handoffToHuman', 'collectFeedback', 'webSearch'].map((k) => [k, { type: 'boolean' }])),
    handoffMessage: {
      type: ['string', 'null'],
      maxLength: 1000,
      description: 'What the visitor is told when a person takes over (agentry extension; default: a short notice that a person will reply)',
    },
  },
  description:
    'System tools offered to the AI of conversation turns (TOOLS_AI nodes, the default reply): end_conversation, handoff_to_human, ' +
    'collect_feedback, web_search (needs WEB_SEARCH_URL)',
};

const agentSettingProperties = {
  instructions: text(50000),
  aiModelId: { type: ['integer', 'null'], description: 'A TEXT model that is not deprecated (GET /ai-models?type=TEXT); null: the default' },
  customToolIds: ids('custom tools (/custom-tools)'),
  playbookIds: ids('playbooks (/playbooks)'),
  knowledgeBaseIds: ids('knowledge bases (/knowledge-bases)'),
  connectedAccountIds: ids('connected accounts (GET /integrations)'),
  systemToolSettings,
};

export const AgentSettingUpdateSchema: JsonSchema = {
  $id: 'AgentSettingUpdate',
  type: 'object',
  additionalProperties: false,
  properties: agentSettingProperties,
};
export const AgentSettingSchema: JsonSchema = { $id: 'AgentSetting', ...strictObject(agentSettingProperties) };

const themeProperties = {
  title: text(100),
  subtitle: text(200),
  welcomeMessage: text(1000),
  offlineMessage: text(1000),
  inputPlaceholder: text(200),
  position: { enum: ['left', 'right'] },
  primaryColor: colour,
  secondaryColor: colour,
  backgroundColor: colour,
  textColor: colour,
  userBubbleColor: colour,
  agentBubbleColor: colour,
};

export const ThemeUpdateSchema: JsonSchema = { $id: 'AgentThemeUpdate', type: 'object', additionalProperties: false, properties: themeProperties };
export const ThemeSchema: JsonSchema = { $id: 'AgentTheme', ...strictObject(themeProperties) };

const channelProperties = {
  enabled: { type: 'boolean' },
  enableIdle: { type: 'boolean', description: 'CONVERSATION_IDLE triggers fire for this channel only when true' },
  idleSettings: {
    type: 'object',
    additionalProperties: false,
    properties: {
      idleMinutes: {
        type: 'integer',
        minimum: IDLE_MINUTES.min,
        maximum: IDLE_MINUTES.max,
        description: 'Minutes without a user message before the conversation is idle',
      },
      message: text(1000),
    },
  },
};

/** Livechat only: the sites the widget may be embedded on. */
const allowedOrigins = {
  type: 'array',
  maxItems: 100,
  uniqueItems: true,
  description:
    'Livechat only: exact origins (scheme://host[:port]) whose pages may start widget sessions; empty: any site. Another origin is refused with 403 and gets no CORS answer',
  items: { type: 'string', maxLength: 300, pattern: '^https?://[^/\\s?#]+$' },
};
/** Channel settings as stored: `allowedOrigins` only where set (livechat). */
const channelSettings = { ...strictObject(channelProperties), properties: { ...channelProperties, allowedOrigins } };

export const ChannelSettingsUpdateSchema: JsonSchema = {
  $id: 'AgentChannelSettingsUpdate',
  type: 'object',
  additionalProperties: false,
  properties: { ...channelProperties, allowedOrigins },
};
export const ChannelSettingsSchema: JsonSchema = { $id: 'AgentChannelSettings', ...channelSettings };
export const AllChannelSettingsSchema: JsonSchema = {
  $id: 'AgentAllChannelSettings',
  ...strictObject(Object.fromEntries(['livechat', 'messaging', 'instagram', 'facebook'].map((c) => [c, channelSettings]))),
};

export const AgentVariableSchema: JsonSchema = {
  $id: 'AgentVariable',
  ...strictObject({ id: { type: 'integer' }, name: { type: 'string' }, description: { type: 'string' }, createdAt: timestamp, updatedAt: timestamp }),
};

export const AgentVariableAllSchema: JsonSchema = page({
  type: 'object',
  required: ['id', 'name', 'description', 'builtIn'],
  properties: { id: { type: ['integer', 'null'] }, name: { type: 'string' }, description: { type: 'string' }, builtIn: { type: 'boolean' } },
});

const phrases = { type: 'array', maxItems: 500, items: { type: 'string', minLength: 1, maxLength: 500 } };

export const IntentCreateSchema: JsonSchema = {
  $id: 'IntentCreate',
  type: 'object',
  additionalProperties: false,
  required: ['name'],
  properties: { name, description: text(2000), trainingPhrases: phrases },
};
export const IntentUpdateSchema: JsonSchema = {
  $id: 'IntentUpdate',
  type: 'object',
  additionalProperties: false,
  properties: { name, description: text(2000), trainingPhrases: phrases },
};
export const GeneratePhrasesSchema: JsonSchema = {
  $id: 'IntentGeneratePhrases',
  type: 'object',
  additionalProperties: false,
  properties: {
    intentId: { type: 'integer', minimum: 1 },
    name: text(255),
    description: text(2000),
    trainingPhrases: phrases,
    count: { type: 'integer', minimum: 1, maximum: 50 },
  },
};
export const IntentSchema: JsonSchema = {
  $id: 'Intent',
  ...strictObject({
    id: { type: 'integer' },
    name: { type: 'string' },
    description: { type: 'string' },
    trainingPhrases: { type: 'array', items: { type: 'string' } },
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
};
