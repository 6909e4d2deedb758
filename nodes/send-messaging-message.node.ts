/**
 * SEND_MESSAGING_MESSAGE (SPEC.md): sends an approved messaging template from a business number to a phone number
 * or a People record, through the messaging adapter (`integrations/messaging/`).
 */
import { executeSendMessagingMessage } from './support/send-template.js';
import { findApprovedTemplate, findMessagingNumber } from '../db/channels/numbers-and-pages.service.js';
import type { Issue } from '../lib/errors.js';
import { invalid, missing, notFound, type NodeCheck, type NodeCheckContext } from './checks/check-context.js';
import { isInterpolated } from './checks/interpolation.js';
import { DEFAULT_HANDLES, type NodeModule } from './node-module.js';

export const RECIPIENT_MODES = ['PHONE_NUMBER', 'PEOPLE_RECORD'];
export const TEMPLATE_VARIABLE_KEYS = ['header', 'body', 'buttons'];
/** Full international format: `+`, then 7 to 15 digits, the first not 0. */
const INTERNATIONAL = /^\+[1-9]\d{6,14}$/;

const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The recipient: a phone number and a name, or a People record (SPEC.md, SEND_MESSAGING_MESSAGE node data). */
function recipientIssues(data: Record<string, unknown>): Issue[] {
  const mode = data.recipientMode ?? 'PHONE_NUMBER';
  if (!RECIPIENT_MODES.includes(mode as string)) return [invalid('recipientMode', `must be one of ${RECIPIENT_MODES.join(', ')}`)];
  const required = mode === 'PHONE_NUMBER' ? ['personName', 'phoneNumber'] : ['peopleRowId'];
  const issues: Issue[] = [];
  for (const key of required) {
    const value = data[key];
    if (!filled(value)) issues.push(missing(key, `is required when recipientMode is ${mode}`));
  }
  const phone = data.phoneNumber;
  if (mode === 'PHONE_NUMBER' && filled(phone) && !isInterpolated(phone) && !INTERNATIONAL.test(phone)) {
    issues.push(invalid('phoneNumber', 'must be in full international format: + and 7 to 15 digits, e.g. +14155550123 (or a {variable})'));
  }
  return issues;
}

/** The business number sending the message: one of the account's, attached to an agent, allowed to send. */
async function senderIssues(phoneNumberId: unknown, { em, accountId }: NodeCheckContext): Promise<Issue[]> {
  if (phoneNumberId === undefined || phoneNumberId === null || phoneNumberId === '') return [missing('phoneNumberId')];
  if (typeof phoneNumberId !== 'string' && !Number.isInteger(phoneNumberId)) {
    return [invalid('phoneNumberId', 'must be the business phone number id of a number in GET /channels')];
  }
  const number = await findMessagingNumber(em, accountId, String(phoneNumberId));
  if (!number) return [notFound('phoneNumberId', `no messaging number with phoneNumberId ${phoneNumberId} in this account`)];
  const issues: Issue[] = [];
  if (!number.assistantId) issues.push(invalid('phoneNumberId', `number ${number.phoneNumber} has no assistantId: attach it to an agent first`));
  if (!number.canSendMessages) issues.push(invalid('phoneNumberId', `number ${number.phoneNumber} cannot send messages (canSendMessages is false)`));
  return issues;
}

async function templateIssues(template: unknown, { em, accountId }: NodeCheckContext): Promise<Issue[]> {
  if (!filled(template)) return [missing('template', 'is required: the name of an APPROVED template')];
  return (await findApprovedTemplate(em, accountId, template)) ? [] : [notFound('template', `no APPROVED template "${template}" in this account`)];
}

/** `templateVariables` holds only the template's header, body and buttons parameters. */
function templateVariableIssues(values: unknown): Issue[] {
  if (values === undefined || values === null) return [];
  return Object.keys(values)
    .filter((key) => !TEMPLATE_VARIABLE_KEYS.includes(key))
    .map((key) => invalid(`templateVariables.${key}`, `unknown key; templateVariables holds only ${TEMPLATE_VARIABLE_KEYS.join(', ')}`));
}

const checkSendMessagingMessage: NodeCheck = async (node, ctx) => [
  ...recipientIssues(node.data),
  ...(await senderIssues(node.data.phoneNumberId, ctx)),
  ...(await templateIssues(node.data.template, ctx)),
  ...templateVariableIssues(node.data.templateVariables),
];

const text = (description: string) => ({ type: ['string', 'null'], maxLength: 1000, description });

export const sendMessagingMessageNode: NodeModule = {
  type: 'SEND_MESSAGING_MESSAGE',
  scopes: ['automation'],
  summary: 'Sends an approved messaging template from a business number to a phone number or a People record',
  data: {
    properties: {
      recipientMode: { enum: [...RECIPIENT_MODES, null], description: 'PHONE_NUMBER when omitted' },
      personName: text('Required with PHONE_NUMBER; interpolable'),
      phoneNumber: text('Required with PHONE_NUMBER: full international format; interpolable'),
      peopleRowId: text('Required with PEOPLE_RECORD: a People record; interpolable'),
      phoneNumberId: { type: ['string', 'integer'], description: 'Required: business phone number id of a number in GET /channels' },
      template: { type: 'string', description: 'Required: name of an APPROVED template' },
      templateVariables: {
        type: ['object', 'null'],
        properties: Object.fromEntries(TEMPLATE_VARIABLE_KEYS.map((key) => [key, { description: 'Template parameter values; interpolable' }])),
      },
    },
  },
  handles: DEFAULT_HANDLES,
  interpolated: ['personName', 'phoneNumber', 'peopleRowId', 'templateVariables.header', 'templateVariables.body', 'templateVariables.buttons'],
  checks: [checkSendMessagingMessage],
  execute: executeSendMessagingMessage,
};
