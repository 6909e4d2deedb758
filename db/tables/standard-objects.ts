/**
 * The standard Objects every account starts with: People, Companies, Deals and Tickets. People, Deals and
 * Tickets carry the built-in Users field (an entityRelation to the account's users).
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { DataField } from './data-field.entity.js';
import { DataTable } from './data-table.entity.js';
import { findTable } from './table-lookups.js';
import type { FieldInput } from './fields.service.js';
import { addField } from './fields.service.js';
import { createOption } from './options.service.js';
import { createTable } from './tables.service.js';

interface StandardField extends FieldInput {
  options?: string[];
  system?: boolean;
  /** Relation to another standard Object, by name; its first field is the display column. */
  relatedTo?: string;
}

const USERS: StandardField = {
  name: 'Users',
  type: 'entityRelation',
  metadata: { entityModel: 'User', displayField: 'email', mode: 'multi' },
  system: true,
};

const text = (name: string, format = 'text', extra: Record<string, unknown> = {}): StandardField => ({
  name,
  type: 'string',
  metadata: { format, ...extra },
});

const select = (name: string, options: string[]): StandardField => ({ name, type: 'select', metadata: { mode: 'singleSelect' }, options });

const STANDARD_OBJECTS: { name: string; displayName: string; emoji: string; fields: StandardField[] }[] = [
  {
    name: 'companies',
    displayName: 'Companies',
    emoji: '🏢',
    fields: [
      text('Name'),
      text('Domain', 'url'),
      select('Industry', ['Technology', 'Finance', 'Healthcare', 'Retail', 'Manufacturing', 'Other']),
      { name: 'Employees', type: 'number', metadata: { format: 'integer' } },
    ],
  },
  {
    name: 'people',
    displayName: 'People',
    emoji: '👤',
    fields: [
      text('First name'),
      text('Last name'),
      text('Email', 'email'),
      text('Phone', 'phone_number'),
      { name: 'Company', type: 'relation', relatedTo: 'companies' },
      USERS,
    ],
  },
  {
    name: 'deals',
    displayName: 'Deals',
    emoji: '💰',
    fields: [
      text('Name'),
      { name: 'Amount', type: 'number', metadata: { format: 'currency', currency: 'USD', decimals: 2 } },
      select('Stage', ['Lead', 'Qualified', 'Proposal', 'Won', 'Lost']),
      { name: 'Close date', type: 'dateOnly', metadata: { format: 'yyyy-MM-dd' } },
      { name: 'Company', type: 'relation', relatedTo: 'companies' },
      USERS,
    ],
  },
  {
    name: 'tickets',
    displayName: 'Tickets',
    emoji: '🎫',
    fields: [
      text('Subject'),
      text('Description', 'text', { extendedField: true }),
      select('Status', ['Open', 'Pending', 'Closed']),
      select('Priority', ['Low', 'Medium', 'High', 'Urgent']),
      { name: 'Contact', type: 'relation', relatedTo: 'people' },
      USERS,
    ],
  },
];

/** Creates the standard Objects of an account that does not have them yet (idempotent). */
export async function seedStandardObjects(em: EntityManager, accountId: number): Promise<void> {
  await em.transactional(async (tx) => {
    if (await tx.count(DataTable, { account: accountId, kind: 'OBJECT', isSystem: true })) return;
    for (const spec of STANDARD_OBJECTS) {
      const table = await createTable(tx, accountId, 'OBJECT', { name: spec.name, displayName: spec.displayName, emoji: spec.emoji }, true);
      for (const { options, system, relatedTo, ...input } of spec.fields) {
        if (relatedTo) {
          const target = await findTable(tx, accountId, 'OBJECT', relatedTo);
          const display = await tx.findOneOrFail(DataField, { table: target }, { orderBy: { position: 'asc' } });
          input.metadata = { mode: 'single', relatedTableId: target.id, displayColumn: display.id };
        }
        const field = await addField(tx, table, input);
        if (system) field.isSystem = true;
        for (const option of options ?? []) await createOption(tx, field, { name: option });
      }
      await tx.flush();
    }
  });
}
