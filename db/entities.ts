import { AccountSchema } from './accounts/account.entity.js';
import { ApiKeySchema } from './accounts/api-key.entity.js';
import { UserSchema } from './accounts/user.entity.js';
import { UserSessionSchema } from './accounts/user-session.entity.js';
import { WorkerHeartbeatSchema } from './automations/worker-heartbeat.entity.js';
import { NodeEffectSchema } from './node-effects/node-effect.entity.js';
import { DataTableSchema } from './tables/data-table.entity.js';
import { DataFieldSchema } from './tables/data-field.entity.js';
import { FieldOptionSchema } from './tables/field-option.entity.js';
import { RecordTypeSchema } from './tables/record-type.entity.js';
import { DataViewSchema } from './tables/data-view.entity.js';
import { DataViewAggregationSchema } from './tables/data-view-aggregation.entity.js';
import { OutboxEventSchema } from './automations/outbox-event.entity.js';
import { IncomingWebhookSchema } from './automations/incoming-webhook.entity.js';
import { AutomationSchema } from './automations/automation.entity.js';
import { AutomationRunSchema } from './automations/automation-run.entity.js';
import { GraphSnapshotSchema } from './automations/graph-snapshot.entity.js';
import { BundleImportSchema } from './bundles/bundle-import.entity.js';
import { AutomationVariableSchema } from './automations/automation-variable.entity.js';
import { AiModelSchema } from './catalogs/ai-model.entity.js';
import { MessagingNumberSchema } from './channels/messaging-number.entity.js';
import { SocialAccountSchema } from './channels/social-account.entity.js';
import { MessagingTemplateSchema } from './channels/messaging-template.entity.js';
import { ConnectedAccountSchema } from './catalogs/connected-account.entity.js';
import { RecordActivitySchema } from './tables/record-activity.entity.js';
import { RecordTaskSchema } from './tables/record-task.entity.js';
import { RecordFileSchema } from './tables/files/record-file.entity.js';
import { AgentSchema } from './agents/agent.entity.js';
import { AgentConfigSchema } from './agents/agent-config.entity.js';
import { FlowSchema } from './agents/flow.entity.js';
import { AgentVariableSchema } from './agents/agent-variable.entity.js';
import { IntentSchema } from './agents/intent.entity.js';
import { AgentResourceSchema } from './agents/agent-resource.entity.js';
import { ConversationSchema } from './agents/conversation.entity.js';
import { ConversationMessageSchema } from './agents/conversation-message.entity.js';
import { ConversationViewerSchema } from './agents/conversation-viewer.entity.js';
import { TriggerSubscriptionSchema } from './automations/trigger-subscription.entity.js';
import { TriggerDeliveryReceiptSchema } from './automations/trigger-delivery-receipt.entity.js';
import { AdmittedRunSchema } from './automations/admitted-run.entity.js';
import { IdempotencyKeySchema } from './automations/idempotency-key.entity.js';
import { RunRetrySchema } from './automations/run-retry.entity.js';
import { RetryJobSchema } from './automations/retry-job.entity.js';
import { KnowledgeDocumentSchema } from './knowledge/knowledge-document.entity.js';
import { KnowledgeChunkSchema } from './knowledge/knowledge-chunk.entity.js';

/** Every entity schema; the ORM config registers exactly these. */
export const entities = [
  AccountSchema,
  UserSchema,
  UserSessionSchema,
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
  BundleImportSchema,
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
  ConversationViewerSchema,
  TriggerSubscriptionSchema,
  TriggerDeliveryReceiptSchema,
  IdempotencyKeySchema,
  RunRetrySchema,
  RetryJobSchema,
  KnowledgeDocumentSchema,
  KnowledgeChunkSchema,
];
