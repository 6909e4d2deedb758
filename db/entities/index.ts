import { AccountSchema } from './account.entity.js';
import { ApiKeySchema } from './api-key.entity.js';
import { UserSchema } from './user.entity.js';
import { WorkerHeartbeatSchema } from './worker-heartbeat.entity.js';
import { NodeEffectSchema } from './node-effect.entity.js';
import { DataTableSchema } from './data-table.entity.js';
import { DataFieldSchema } from './data-field.entity.js';
import { FieldOptionSchema } from './field-option.entity.js';
import { RecordTypeSchema } from './record-type.entity.js';
import { DataViewSchema } from './data-view.entity.js';
import { DataViewAggregationSchema } from './data-view-aggregation.entity.js';
import { OutboxEventSchema } from './outbox-event.entity.js';
import { IncomingWebhookSchema } from './incoming-webhook.entity.js';
import { AutomationSchema } from './automation.entity.js';
import { AutomationRunSchema } from './automation-run.entity.js';
import { GraphSnapshotSchema } from './graph-snapshot.entity.js';
import { AutomationVariableSchema } from './automation-variable.entity.js';
import { AiModelSchema } from './ai-model.entity.js';
import { MessagingNumberSchema } from './messaging-number.entity.js';
import { SocialAccountSchema } from './social-account.entity.js';
import { MessagingTemplateSchema } from './messaging-template.entity.js';
import { ConnectedAccountSchema } from './connected-account.entity.js';
import { RecordActivitySchema } from './record-activity.entity.js';
import { RecordTaskSchema } from './record-task.entity.js';
import { RecordFileSchema } from './record-file.entity.js';
import { AgentSchema } from './agent.entity.js';
import { AgentConfigSchema } from './agent-config.entity.js';
import { FlowSchema } from './flow.entity.js';
import { AgentVariableSchema } from './agent-variable.entity.js';
import { IntentSchema } from './intent.entity.js';
import { AgentResourceSchema } from './agent-resource.entity.js';
import { ConversationSchema } from './conversation.entity.js';
import { ConversationMessageSchema } from './conversation-message.entity.js';
import { TriggerSubscriptionSchema } from './trigger-subscription.entity.js';
import { TriggerDeliveryReceiptSchema } from './trigger-delivery-receipt.entity.js';
import { AdmittedRunSchema } from './admitted-run.entity.js';
import { IdempotencyKeySchema } from './idempotency-key.entity.js';
import { KnowledgeDocumentSchema } from './knowledge-document.entity.js';
import { KnowledgeChunkSchema } from './knowledge-chunk.entity.js';

export { Account } from './account.entity.js';
export { ApiKey, type ApiKeyKind } from './api-key.entity.js';
export { User } from './user.entity.js';
export { WorkerHeartbeat } from './worker-heartbeat.entity.js';
export { NodeEffect } from './node-effect.entity.js';
export { DataTable } from './data-table.entity.js';
export { DataField } from './data-field.entity.js';
export { FieldOption } from './field-option.entity.js';
export { RecordType } from './record-type.entity.js';
export { DataView } from './data-view.entity.js';
export { DataViewAggregation, AGGREGATION_OPERATIONS, type AggregationOperation } from './data-view-aggregation.entity.js';
export { OutboxEvent } from './outbox-event.entity.js';
export { IncomingWebhook } from './incoming-webhook.entity.js';
export { Automation, type AutomationStatus } from './automation.entity.js';
export { AutomationRun, type AutomationRunStatus } from './automation-run.entity.js';
export { GraphSnapshot } from './graph-snapshot.entity.js';
export { AutomationVariable } from './automation-variable.entity.js';
export { AiModel, AI_MODEL_TYPES, type AiModelType } from './ai-model.entity.js';
export { MessagingNumber } from './messaging-number.entity.js';
export { SocialAccount, type SocialPage } from './social-account.entity.js';
export {
  MessagingTemplate,
  TEMPLATE_STATUSES,
  type TemplateStatus,
  type TemplateComponents,
  type TemplateParameter,
} from './messaging-template.entity.js';
export { ConnectedAccount, CONNECTED_ACCOUNT_STATUSES, type ConnectedAccountStatus } from './connected-account.entity.js';
export { RecordActivity, RECORD_ACTIVITY_TYPES, type RecordActivityType, type RecordActivitySource } from './record-activity.entity.js';
export { RecordTask } from './record-task.entity.js';
export { RecordFile } from './record-file.entity.js';
export { Agent } from './agent.entity.js';
export { AgentConfig } from './agent-config.entity.js';
export { Flow, type FlowStatus } from './flow.entity.js';
export { AgentVariable } from './agent-variable.entity.js';
export { Intent } from './intent.entity.js';
export { AgentResource, AGENT_RESOURCE_KINDS, type AgentResourceKind } from './agent-resource.entity.js';
export { Conversation, type ConversationStatus, type ConversationFeedback } from './conversation.entity.js';
export { ConversationMessage, type DeliveryStatus, type MessageCitation, type MessageMetadata } from './conversation-message.entity.js';
export { TriggerSubscription } from './trigger-subscription.entity.js';
export { TriggerDeliveryReceipt } from './trigger-delivery-receipt.entity.js';
export { AdmittedRun } from './admitted-run.entity.js';
export { IdempotencyKey } from './idempotency-key.entity.js';
export {
  KnowledgeDocument,
  KNOWLEDGE_DOCUMENT_STATUSES,
  KNOWLEDGE_DOCUMENT_SOURCES,
  type KnowledgeDocumentStatus,
  type KnowledgeDocumentSource,
} from './knowledge-document.entity.js';
export { KnowledgeChunk } from './knowledge-chunk.entity.js';

/** Every entity schema; the ORM config registers exactly these. */
export const entities = [
  AccountSchema,
  UserSchema,
  ApiKeySchema,
  WorkerHeartbeatSchema,
  AdmittedRunSchema,
  NodeEffectSchema,
  DataTableSchema,
  DataFieldSchema,
  FieldOptionSchema,
  RecordTypeSchema,
  DataViewSchema,
  DataViewAggregationSchema,
  OutboxEventSchema,
  IncomingWebhookSchema,
  AutomationSchema,
  AutomationRunSchema,
  GraphSnapshotSchema,
  AutomationVariableSchema,
  AiModelSchema,
  MessagingNumberSchema,
  SocialAccountSchema,
  MessagingTemplateSchema,
  ConnectedAccountSchema,
  RecordActivitySchema,
  RecordTaskSchema,
  RecordFileSchema,
  AgentSchema,
  AgentConfigSchema,
  FlowSchema,
  AgentVariableSchema,
  IntentSchema,
  AgentResourceSchema,
  ConversationSchema,
  ConversationMessageSchema,
  TriggerSubscriptionSchema,
  TriggerDeliveryReceiptSchema,
  IdempotencyKeySchema,
  KnowledgeDocumentSchema,
  KnowledgeChunkSchema,
];
