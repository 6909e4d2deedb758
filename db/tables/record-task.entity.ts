import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';
import { DataTable } from './data-table.entity.js';
import { User } from '../accounts/user.entity.js';

/**
 * A task on an Object record (a to-do with a due date and assignees). Like activities, `rowId` is the record's
 * 24-hex id without a foreign key (rows live in physical tables); the task goes when its record is deleted.
 * A task is open while `completedAt` is null (SPEC.md, States and transitions: open ⇄ completed).
 */
export class RecordTask {
  id!: number;
  account!: Account;
  table!: DataTable;
  rowId!: string;
  content!: string;
  dueDate?: Date | null;
  /** Ids of users of the account, in the order given. */
  assigneeIds: Opt<number[]> = [];
  /** The user whose USER key created it (null once that user is gone). */
  createdBy?: User | null;
  completedAt?: Date | null;
  completedBy?: User | null;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const RecordTaskSchema = new EntitySchema<RecordTask>({
  class: RecordTask,
  tableName: 'record_tasks',
  indexes: [
    { name: 'record_tasks_record_index', properties: ['table', 'rowId'] },
    { name: 'record_tasks_account_index', properties: ['account'] },
  ],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    table: { kind: 'm:1', entity: () => DataTable, deleteRule: 'cascade' },
    rowId: { type: 'text' },
    content: { type: 'text' },
    dueDate: { type: 'Date', columnType: 'timestamptz', nullable: true },
    assigneeIds: { type: 'json', columnType: 'jsonb' },
    createdBy: { kind: 'm:1', entity: () => User, nullable: true, deleteRule: 'set null' },
    completedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    completedBy: { kind: 'm:1', entity: () => User, nullable: true, deleteRule: 'set null' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
