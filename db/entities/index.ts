import { AccountSchema } from './account.entity.js';
import { ApiKeySchema } from './api-key.entity.js';
import { UserSchema } from './user.entity.js';
import { WorkerHeartbeatSchema } from './worker-heartbeat.entity.js';

export { Account } from './account.entity.js';
export { ApiKey, type ApiKeyKind } from './api-key.entity.js';
export { User } from './user.entity.js';
export { WorkerHeartbeat } from './worker-heartbeat.entity.js';

/** Every entity schema; the ORM config registers exactly these. */
export const entities = [AccountSchema, UserSchema, ApiKeySchema, WorkerHeartbeatSchema];
