/** Read-only catalogs (AI models, channels, integrations, trigger types) and the lookups node validation uses. */
export { aiModelView, defaultAiModel, findAiModel, findModelByExternalId, getAiModel, listAiModels, type AiModelView } from './ai-models.service.js';
export {
  addMessagingTemplate,
  addSocialAccount,
  connectMessagingNumber,
  findApprovedTemplate,
  findMessagingNumber,
  listApprovedTemplates,
  listChannels,
  messagingNumberView,
  messagingTemplateView,
  socialAccountView,
  type ChannelsView,
  type MessagingNumberView,
  type MessagingTemplateView,
  type SocialAccountView,
} from './channels.service.js';
export {
  connectAccount,
  connectedAccountView,
  findConnectedAccount,
  listConnectedAccounts,
  type ConnectedAccountView,
} from './integrations.service.js';
export {
  findTriggerType,
  listTriggerTypes,
  TRIGGER_TYPES,
  validateTriggerConfig,
  type TriggerConfigField,
  type TriggerType,
} from './trigger-types.js';
