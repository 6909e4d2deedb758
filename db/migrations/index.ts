/** Every migration in order. Listed explicitly so migrations run the same from TypeScript sources and bundles. */
import { Migration20261121155308_foundation } from './Migration20261121155308_foundation.js';
import { Migration20261121162356_data_tables } from './Migration20261121162356_data_tables.js';
import { Migration20261121163519_schema_version } from './Migration20261121163519_schema_version.js';
import { Migration20261121170001_catalogs } from './Migration20261121170001_catalogs.js';
import { Migration20261121170002_incoming_webhooks } from './Migration20261121170002_incoming_webhooks.js';
import { Migration20261121170003_workflows } from './Migration20261121170003_workflows.js';
import { Migration20261121180001_runtime } from './Migration20261121180001_runtime.js';
import { Migration20261121180002_record_activities } from './Migration20261121180002_record_activities.js';
import { Migration20261123100000_node_runtime } from './Migration20261123100000_node_runtime.js';
import { Migration20261123102214_record_tasks_files } from './Migration20261123102214_record_tasks_files.js';
import { Migration20261123110000_view_aggregations } from './Migration20261123110000_view_aggregations.js';
import { Migration20261123110753_agents } from './Migration20261123110753_agents.js';
import { Migration20261123133009_conversations } from './Migration20261123133009_conversations.js';
import { Migration20261123133017_provider_events } from './Migration20261123133017_provider_events.js';
import { Migration20261123140102_admission } from './Migration20261123140102_admission.js';
import { Migration20261125170118_idempotency_keys } from './Migration20261125170118_idempotency_keys.js';
import { Migration20261125194450_knowledge } from './Migration20261125194450_knowledge.js';
import { Migration20261125194527_livechat_widget } from './Migration20261125194527_livechat_widget.js';
import { Migration20261125223915_meta_channels } from './Migration20261125223915_meta_channels.js';
import { Migration20261125230412_handoffs } from './Migration20261125230412_handoffs.js';
import { Migration20261125235900_knowledge_reindex } from './Migration20261125235900_knowledge_reindex.js';
import { Migration20261128001500_knowledge_embeddings_apart } from './Migration20261128001500_knowledge_embeddings_apart.js';

export const migrationsList = [
  { name: 'Migration20261121155308_foundation', class: Migration20261121155308_foundation },
  { name: 'Migration20261121162356_data_tables', class: Migration20261121162356_data_tables },
  { name: 'Migration20261121163519_schema_version', class: Migration20261121163519_schema_version },
  { name: 'Migration20261121170001_catalogs', class: Migration20261121170001_catalogs },
  { name: 'Migration20261121170002_incoming_webhooks', class: Migration20261121170002_incoming_webhooks },
  { name: 'Migration20261121170003_workflows', class: Migration20261121170003_workflows },
  { name: 'Migration20261121180001_runtime', class: Migration20261121180001_runtime },
  { name: 'Migration20261121180002_record_activities', class: Migration20261121180002_record_activities },
  { name: 'Migration20261123100000_node_runtime', class: Migration20261123100000_node_runtime },
  { name: 'Migration20261123102214_record_tasks_files', class: Migration20261123102214_record_tasks_files },
  { name: 'Migration20261123110000_view_aggregations', class: Migration20261123110000_view_aggregations },
  { name: 'Migration20261123110753_agents', class: Migration20261123110753_agents },
  { name: 'Migration20261123133009_conversations', class: Migration20261123133009_conversations },
  { name: 'Migration20261123133017_provider_events', class: Migration20261123133017_provider_events },
  { name: 'Migration20261123140102_admission', class: Migration20261123140102_admission },
  { name: 'Migration20261125170118_idempotency_keys', class: Migration20261125170118_idempotency_keys },
  { name: 'Migration20261125194450_knowledge', class: Migration20261125194450_knowledge },
  { name: 'Migration20261125194527_livechat_widget', class: Migration20261125194527_livechat_widget },
  { name: 'Migration20261125223915_meta_channels', class: Migration20261125223915_meta_channels },
  { name: 'Migration20261125230412_handoffs', class: Migration20261125230412_handoffs },
  { name: 'Migration20261125235900_knowledge_reindex', class: Migration20261125235900_knowledge_reindex },
  { name: 'Migration20261128001500_knowledge_embeddings_apart', class: Migration20261128001500_knowledge_embeddings_apart },
];
