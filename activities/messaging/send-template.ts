/**
 * SEND_MESSAGING_MESSAGE's executor: resolves the recipient (a phone number, or a People record's Phone), sends the
 * template through the Cloud API adapter, and writes the sent message as an auto-generated MESSAGING activity on
 * the People record. Send and activity run once per node execution (`once`): a retried attempt answers what the
 * first one recorded instead of sending again.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { findApprovedTemplate } from '../../db/catalogs/index.js';
import type { DataTable } from '../../db/entities/index.js';
import { createActivity } from '../../db/tables/record-activities.service.js';
import { getRow, tableContext } from '../../db/tables/rows.service.js';
import { NotFoundError } from '../../lib/errors.js';
import { toVariableString } from '../../lib/runtime/path.js';
import { NodeError, type NodeExecutor } from '../nodes/node-module.js';
import { MESSAGING_NOT_CONFIGURED, sendTemplateMessage, type TemplateValues } from './cloud-api-messaging.js';

const INTERNATIONAL = /^\+[1-9]\d{6,14}$/;

interface Recipient {
  name: string;
  phone: string;
  /** The People record, when the message goes to one. */
  person?: { table: DataTable; rowId: string };
}

async function recipientOf(em: EntityManager, accountId: number, data: Record<string, unknown>): Promise<Recipient> {
  if (data.recipientMode !== 'PEOPLE_RECORD') {
    return { name: toVariableString(data.personName) ?? '', phone: (toVariableString(data.phoneNumber) ?? '').replace(/[\s()-]/g, '') };
  }
  const rowId = (toVariableString(data.peopleRowId) ?? '').trim();
  const people = await tableContext(em, accountId, 'OBJECT', 'people');
  const row = await getRow(em, people, rowId).catch((error: unknown) => {
    throw error instanceof NotFoundError ? new NodeError(`People record ${rowId} not found`, 'RecipientNotFound') : error;
  });
  const phone = String(row.data.Phone ?? '').replace(/[\s()-]/g, '');
  if (!phone) throw new NodeError(`People record ${rowId} has no Phone`, 'RecipientNotFound');
  const name = [row.data['First name'], row.data['Last name']].filter(Boolean).join(' ');
  return { name, phone, person: { table: people.table, rowId } };
}

export const executeSendMessagingMessage: NodeExecutor = async (input, context) => {
  const { data, accountId, automationId, executionKey } = input;
  if (!context.messaging) throw new NodeError(MESSAGING_NOT_CONFIGURED, 'MessagingNotConfigured');
  const config = context.messaging;
  const em = context.orm.em.fork();
  const template = await findApprovedTemplate(em, accountId, String(data.template));
  if (!template) throw new NodeError(`No APPROVED template "${String(data.template)}" in this account any more`, 'InvalidNode');
  const recipient = await recipientOf(em, accountId, data);
  if (!INTERNATIONAL.test(recipient.phone))
    throw new NodeError(`"${recipient.phone}" is not a phone number in international format (+ and 7 to 15 digits)`);
  const values = (data.templateVariables ?? {}) as TemplateValues;
  return {
    output: await context.once(async (tx) => {
      const message = {
        phoneNumberId: String(data.phoneNumberId),
        to: recipient.phone,
        template: template.name,
        language: template.language,
        values,
      };
      const messageId = await sendTemplateMessage(config, message, context.signal, context.httpTimeoutMs);
      if (recipient.person) {
        const parameters = [values.header, values.body, values.buttons].flat().filter((v) => v !== undefined && v !== null);
        const content = `Sent template "${template.name}" (${template.language}) to ${recipient.phone}${parameters.length ? `: ${parameters.join(' | ')}` : ''}`;
        const source = { workflowId: automationId, runId: context.temporalWorkflowId, messageId };
        await createActivity(
          tx,
          recipient.person.table,
          recipient.person.rowId,
          { type: 'MESSAGING', content },
          { source, idempotencyKey: executionKey },
        );
      }
      return { messageId, to: recipient.phone, name: recipient.name, template: template.name };
    }),
  };
};
