import { EntitySchema, type Opt } from '@mikro-orm/core';
import type { TableKind } from './types.js';
import { Account } from '../accounts/account.entity.js';

/** Metadata of a CRM Object or a Table; its rows live in the physical table `data.rows_<id>`. */
export class DataTable {
  id!: number;
  account!: Account;
  kind!: TableKind;
  /** URL name (`/objects/{name}`): lowercase slug, unique per account and kind. */
  name!: string;
  displayName!: string;
  emoji?: string | null;
  color?: string | null;
  description?: string | null;
  /** Standard objects (People, Companies, Deals, Tickets) cannot be deleted. */
  isSystem: Opt<boolean> = false;
  /** Bumped by every change of fields or options, so processes can cache the field list per version. */
  schemaVersion: Opt<number> = 0;
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const DataTableSchema = new EntitySchema<DataTable>({
  class: DataTable,
  tableName: 'data_tables',
  uniques: [{ name: 'data_tables_account_kind_name_unique', properties: ['account', 'kind', 'name'] }],
  checks: [{ name: 'data_tables_kind_check', expression: "kind in ('OBJECT', 'TABLE')" }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    kind: { type: 'text' },
    name: { type: 'text' },
    displayName: { type: 'text' },
    emoji: { type: 'text', nullable: true },
    color: { type: 'text', nullable: true },
    description: { type: 'text', nullable: true },
    isSystem: { type: 'boolean', default: false },
    schemaVersion: { type: 'integer', default: 0 },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
