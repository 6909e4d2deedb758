/**
 * SEND_MESSAGING_MESSAGE's executor: resolves the recipient (a phone number, or a People record's Phone), sends the
 * template through the Cloud API the sending number is configured with (messaging-config.ts), and writes the sent
 * message as an auto-generated MESSAGING activity on the People record: the one named in PEOPLE_RECORD mode, the
 * one with the recipient's phone number in PHONE_NUMBER mode (none when no record has it; `personRowId` in the
 * output says which). Send and activity run once per node execution (`once`): a retried attempt answers what the
 * first one recorded instead of sending again.
 */
import { findApprovedTemplate, findMessagingNumber } from '../../db/channels/numbers-and-pages.service.js';
import { createActivity } from '../../db/tables/record-activities.service.js';
import type { NodeExecutor } from '../node-module.js';
import { sendTemplateMessage, type TemplateValues } from '../../integrations/messaging/cloud-api-messaging.js';
import { messagingConfigOf } from '../../integrations/messaging/messaging-config.js';
import { recipientOf } from '../../integrations/messaging/recipients.js';
import { NodeError } from '../../lib/errors.js';

const INTERNATIONAL = /^\+[1-9]\d{6,14}$/;

export const executeSendMessagingMessage: NodeExecutor = async (input, context) => {
  const { data, accountId, automationId, executionKey } = input;
  const em = context.orm.em.fork();
  const phoneNumberId = String(data.phoneNumberId);
  const config = messagingConfigOf(await findMessagingNumber(em, accountId, phoneNumberId), phoneNumberId, context.secrets, context.messaging);
  const template = await findApprovedTemplate(em, accountId, String(data.template));
  if (!template) throw new NodeError(`No APPROVED template "${String(data.template)}" in this account any more`, 'InvalidNode');
  const recipient = await recipientOf(em, accountId, data);
  if (!INTERNATIONAL.test(recipient.phone))
    throw new NodeError(`"${recipient.phone}" is not a phone number in international format (+ and 7 to 15 digits)`);
  const values = (data.templateVariables ?? {}) as TemplateValues;
  return {
    output: await context.once(async (tx) => {
      const message = {
        phoneNumberId,
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
      return { messageId, to: recipient.phone, name: recipient.name, template: template.name, personRowId: recipient.person?.rowId ?? null };
    }),
  };
};
