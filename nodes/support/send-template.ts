/**
 * SEND_MESSAGING_MESSAGE's executor: resolves the recipient (a phone number, or a People record's Phone), sends the
 * template through the Cloud API the sending number is configured with (`sendTargetOf`), and writes the sent
 * message as an auto-generated MESSAGING activity on the People record: the one named in PEOPLE_RECORD mode, the
 * one with the recipient's phone number in PHONE_NUMBER mode (none when no record has it; `personRowId` in the
 * output says which). Send and activity run once per node execution (`once`): a retried attempt answers what the
 * first one recorded instead of sending again.
 */
import { findApprovedTemplate, findMessagingNumber } from '../../db/channels/numbers-and-pages.service.js';
import { createActivity } from '../../db/tables/record-activities.service.js';
import type { MessagingNumber } from '../../db/channels/messaging-number.entity.js';
import type { ExecutionContext, NodeExecutor } from '../node-module.js';
import { sendTemplateMessage, type MessagingConfig, type TemplateValues } from '../../integrations/messaging/cloud-api-messaging.js';
import { sendTargetOf } from '../../integrations/messaging/send-target.js';
import { recipientOf } from '../../integrations/messaging/recipients.js';
import { NodeError } from '../../lib/errors.js';

const INTERNATIONAL = /^\+[1-9]\d{6,14}$/;

/** The sending number's own Cloud API, else the worker's MESSAGING_API_URL; else the node fails naming both ways. */
function cloudApiOf(number: MessagingNumber | null, phoneNumberId: string, context: ExecutionContext): MessagingConfig {
  const own = { channel: 'messaging' as const, sendApiUrl: number?.cloudApiUrl ?? null, accessTokenSealed: number?.cloudApiTokenSealed ?? null };
  const target = sendTargetOf(own, context.secrets, context.messaging);
  if (!('missing' in target)) return target;
  throw new NodeError(
    target.missing === 'undecryptable'
      ? `The Cloud API token of number ${phoneNumberId} cannot be decrypted: the worker needs the SETTINGS_ENCRYPTION_KEY it was stored with`
      : `Messaging is not configured for number ${phoneNumberId}: set its Cloud API URL and token with ` +
          '`npm run admin -- messaging-settings`, or MESSAGING_API_URL and MESSAGING_API_TOKEN on the worker',
    'MessagingNotConfigured',
  );
}

export const executeSendMessagingMessage: NodeExecutor = async (input, context) => {
  const { data, accountId, automationId, executionKey } = input;
  const em = context.orm.em.fork();
  const phoneNumberId = String(data.phoneNumberId);
  const config = cloudApiOf(await findMessagingNumber(em, accountId, phoneNumberId), phoneNumberId, context);
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
