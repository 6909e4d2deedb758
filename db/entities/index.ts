import { AccountSchema } from './account.entity.js';
import { ApiKeySchema } from './api-key.entity.js';
import { UserSchema } from './user.entity.js';
import { WorkerHeartbeatSchema } from './worker-heartbeat.entity.js';
import { DataTableSchema } from './data-table.entity.js';
import { DataFieldSchema } from './data-field.entity.js';
import { FieldOptionSchema } from './field-option.entity.js';
import { RecordTypeSchema } from './record-type.entity.js';
import { DataViewSchema } from './data-view.entity.js';
import { OutboxEventSchema } from './outbox-event.entity.js';

export { Account } from './account.entity.js';
export { ApiKey, type ApiKeyKind } from './api-key.entity.js';
export { User } from './user.entity.js';
export { WorkerHeartbeat } from './worker-heartbeat.entity.js';
export { DataTable } from './data-table.entity.js';
export { DataField } from './data-field.entity.js';
export { FieldOption } from './field-option.entity.js';
export { RecordType } from './record-type.entity.js';
export { DataView } from './data-view.entity.js';
export { OutboxEvent } from './outbox-event.entity.js';

/** Every entity schema; the ORM config registers exactly these. */
export const entities = [
  AccountSchema,
  UserSchema,
  ApiKeySchema,
  WorkerHeartbeatSchema,
  DataTableSchema,
  DataFieldSchema,
  FieldOptionSchema,
  RecordTypeSchema,
  DataViewSchema,
  OutboxEventSchema,
];
