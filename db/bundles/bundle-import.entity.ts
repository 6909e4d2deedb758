import { EntitySchema, type Opt } from '@mikro-orm/core';
import { Account } from '../accounts/account.entity.js';

/**
 * What a bundle import made of something exported elsewhere: the agent or workflow `sourceKey` names (its id where it
 * was exported, with the exporting account's namespace) became `targetId` here, from a bundle of `checksum`. Importing
 * the same bundle again finds it and changes nothing; importing a changed one updates what `ids` names in place.
 */
export class BundleImport {
  id!: number;
  account!: Account;
  kind!: 'agent' | 'workflow' | 'table';
  sourceKey!: string;
  targetId!: string;
  checksum!: string;
  /** What the import made or updated: `<kind>:<id there>` → id here (the plan's `ids`), so a later import updates them. */
  ids: Opt<Record<string, string | number>> = {};
  createdAt: Opt<Date> = new Date();
  updatedAt: Opt<Date> = new Date();
}

export const BundleImportSchema = new EntitySchema<BundleImport>({
  class: BundleImport,
  tableName: 'bundle_imports',
  uniques: [{ name: 'bundle_imports_source_unique', properties: ['account', 'kind', 'sourceKey'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    account: { kind: 'm:1', entity: () => Account, deleteRule: 'cascade' },
    kind: { type: 'text' },
    sourceKey: { type: 'text' },
    targetId: { type: 'text' },
    checksum: { type: 'text' },
    ids: { type: 'json', default: '{}' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
