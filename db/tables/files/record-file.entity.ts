import { BigIntType, EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../../accounts/account.entity.js';
import { DataField } from '../data-field.entity.js';
import { DataTable } from '../data-table.entity.js';
import { User } from '../../accounts/user.entity.js';

/**
 * A file uploaded to an Object record. The bytes live in the file store under `storageKey` (random, so two
 * files of the same name never collide); this row is written only once every byte is stored, so a file row
 * always has its bytes. `rowId` has no foreign key, like activities and tasks.
 */
export class RecordFile {
  id!: number;
  account!: Account;
  table!: DataTable;
  rowId!: string;
  /** The file field the upload was made for (its value lists the file id); null for a file of the record alone. */
  field?: DataField | null;
  /** The client's file name, as given (any Unicode). */
  name!: string;
  contentType!: string;
  size!: number;
  storageKey!: string;
  uploadedBy?: User | null;
  createdAt: Opt<Date> = new Date();
}

export const RecordFileSchema = new EntitySchema<RecordFile>({
  class: RecordFile,
  tableName: 'record_files',
  indexes: [
    { name: 'record_files_record_index', properties: ['table', 'rowId'] },
    { name: 'record_files_account_index', properties: ['account'] },
  ],
  uniques: [{ name: 'record_files_storage_key_unique', properties: ['storageKey'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    table: { kind: 'm:1', entity: () => DataTable, deleteRule: 'cascade' },
    rowId: { type: 'text' },
    field: { kind: 'm:1', entity: () => DataField, nullable: true, deleteRule: 'set null' },
    name: { type: 'text' },
    contentType: { type: 'text' },
    size: { type: new BigIntType('number') },
    storageKey: { type: 'text' },
    uploadedBy: { kind: 'm:1', entity: () => User, nullable: true, deleteRule: 'set null' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
