/**
 * The settings documents every agent is created with (agent setting, theme, one per channel) and the channels an agent
 * has: livechat and the three messaging channels of the channel catalog (business numbers, Instagram, Facebook pages).
 */

/** Channels of `GET /agents/{agentId}/settings/{channel}`. */
export const AGENT_CHANNELS = ['livechat', 'messaging', 'instagram', 'facebook'] as const;

export type AgentChannel = (typeof AGENT_CHANNELS)[number];

/** Bounds of `idleSettings.idleMinutes`: CONVERSATION_IDLE fires after that many minutes without a user message. */
export const IDLE_MINUTES = { min: 1, max: 1440 };

export const DEFAULT_AGENT_SETTING = {
  instructions: '',
  aiModelId: null,
  customToolIds: [],
  playbookIds: [],
  knowledgeBaseIds: [],
  connectedAccountIds: [],
  systemToolSettings: { endConversation: true, handoffToHuman: false, collectFeedback: false, webSearch: false },
};

export const DEFAULT_THEME = {
  title: 'Assistant',
  subtitle: '',
  welcomeMessage: 'Hi! How can I help you?',
  offlineMessage: 'We are away right now. Please come back later.',
  inputPlaceholder: 'Type a message…',
  position: 'right',
  primaryColor: '#2563eb',
  secondaryColor: '#f3f4f6',
  backgroundColor: '#ffffff',
  textColor: '#111827',
  userBubbleColor: '#2563eb',
  agentBubbleColor: '#f3f4f6',
};

/** Livechat is on from the start, on any site (`allowedOrigins` empty); messaging channels are turned on once connected. */
export function defaultChannelSettings(channel: AgentChannel) {
  const settings = { enabled: channel === 'livechat', enableIdle: false, idleSettings: { idleMinutes: 30, message: '' } };
  return channel === 'livechat' ? { ...settings, allowedOrigins: [] } : settings;
}

/** `kind` of an agent's settings documents (`AgentConfig`). */
export const CONFIG_KIND = {
  setting: 'SETTING',
  theme: 'THEME',
  channel: (channel: AgentChannel) => `CHANNEL:${channel}`,
};
