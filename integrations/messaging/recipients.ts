/**
 * The recipient of a SEND_MESSAGING_MESSAGE node and the People record its message is logged on: in PEOPLE_RECORD
 * mode the record `peopleRowId` (its Phone is the recipient); in PHONE_NUMBER mode the account's People record with
 * that phone number, when there is one (the oldest when several have it), so the message is logged there as well.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DataTable } from '../../db/tables/data-table.entity.js';
import { query, sqlOf } from '../../db/tables/table-lookups.js';
import { qualified, rowTableName } from '../../db/tables/ddl.js';
import { getRow, tableContext, type TableContext } from '../../db/tables/rows.service.js';
import { NotFoundError, NodeError } from '../../lib/errors.js';
import { toVariableString } from '../../lib/runtime/path.js';

export interface Recipient {
  name: string;
  phone: string;
  /** The People record the message is logged on, when there is one. */
  person?: { table: DataTable; rowId: string };
}

const compact = (phone: string) => phone.replace(/[\s()-]/g, '');

/** The People object of the account, or undefined when it has none (it was deleted). */
async function peopleOf(em: EntityManager, accountId: number): Promise<TableContext | undefined> {
  return tableContext(em, accountId, 'OBJECT', 'people').catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });
}

/** The oldest People record whose Phone has the digits of `phone` (formatting aside), if any. */
async function personWithPhone(em: EntityManager, people: TableContext, phone: string): Promise<string | undefined> {
  const column = people.fields.find((f) => f.name === 'Phone')?.column;
  if (!column) return undefined;
  const digits = phone.replace(/\D/g, '');
  const [row] = await query<{ id: string }>(
    sqlOf(em),
    `select id from ${qualified(rowTableName(people.table.id))} where regexp_replace("${column}", '\\D', '', 'g') = ? order by id limit 1`,
    [digits],
  );
  return row?.id;
}

export async function recipientOf(em: EntityManager, accountId: number, data: Record<string, unknown>): Promise<Recipient> {
  if (data.recipientMode !== 'PEOPLE_RECORD') {
    const phone = compact(toVariableString(data.phoneNumber) ?? '');
    const people = await peopleOf(em, accountId);
    const rowId = people && /^\+\d+$/.test(phone) ? await personWithPhone(em, people, phone) : undefined;
    return { name: toVariableString(data.personName) ?? '', phone, ...(rowId && { person: { table: people!.table, rowId } }) };
  }
  const rowId = (toVariableString(data.peopleRowId) ?? '').trim();
  const people = await peopleOf(em, accountId);
  if (!people) throw new NodeError('This account has no People object any more', 'RecipientNotFound');
  const row = await getRow(em, people, rowId).catch((error: unknown) => {
    throw error instanceof NotFoundError ? new NodeError(`People record ${rowId} not found`, 'RecipientNotFound') : error;
  });
  const phone = compact(String(row.data.Phone ?? ''));
  if (!phone) throw new NodeError(`People record ${rowId} has no Phone`, 'RecipientNotFound');
  const name = [row.data['First name'], row.data['Last name']].filter(Boolean).join(' ');
  return { name, phone, person: { table: people.table, rowId } };
}
