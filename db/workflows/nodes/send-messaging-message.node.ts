import type { Issue } from '../../../lib/errors.js';
import { findApprovedTemplate, findMessagingNumber } from '../../catalogs/index.js';
import { isRecord } from './compose.js';
import { isInterpolated, unknownReferences } from './interpolation.js';
import { invalid, missing, notFound, type NodeCheck, type NodeCheckContext } from './types.js';

export const RECIPIENT_MODES = ['PHONE_NUMBER', 'PEOPLE_RECORD'];
export const TEMPLATE_VARIABLE_KEYS = ['header', 'body', 'buttons'];
/** Full international format: `+`, then 7 to 15 digits, the first not 0. */
const INTERNATIONAL = /^\+[1-9]\d{6,14}$/;

const filled = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** The recipient: a phone number and a name, or a People record (SPEC.md, SEND_MESSAGING_MESSAGE node data). */
function recipientIssues(data: Record<string, unknown>, ctx: NodeCheckContext): Issue[] {
  const mode = data.recipientMode ?? 'PHONE_NUMBER';
  if (!RECIPIENT_MODES.includes(mode as string)) return [invalid('recipientMode', `must be one of ${RECIPIENT_MODES.join(', ')}`)];
  const required = mode === 'PHONE_NUMBER' ? ['personName', 'phoneNumber'] : ['peopleRowId'];
  const issues: Issue[] = [];
  for (const key of required) {
    const value = data[key];
    if (!filled(value)) issues.push(missing(key, `is required when recipientMode is ${mode}`));
    else issues.push(...unknownReferences(key, value, ctx));
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

/** `templateVariables`: values of the template's header, body and buttons parameters, interpolable. */
function templateVariableIssues(values: unknown, ctx: NodeCheckContext): Issue[] {
  if (values === undefined || values === null) return [];
  if (!isRecord(values)) return [invalid('templateVariables', `must be an object with keys ${TEMPLATE_VARIABLE_KEYS.join(', ')}`)];
  return Object.entries(values).flatMap(([key, value]) =>
    TEMPLATE_VARIABLE_KEYS.includes(key)
      ? unknownReferences(`templateVariables.${key}`, value, ctx)
      : [invalid(`templateVariables.${key}`, `unknown key; templateVariables holds only ${TEMPLATE_VARIABLE_KEYS.join(', ')}`)],
  );
}

/** SEND_MESSAGING_MESSAGE: an approved template sent from a business number to a phone number or People record. */
export const checkSendMessagingMessage: NodeCheck = async (node, ctx) => [
  ...recipientIssues(node.data, ctx),
  ...(await senderIssues(node.data.phoneNumberId, ctx)),
  ...(await templateIssues(node.data.template, ctx)),
  ...templateVariableIssues(node.data.templateVariables, ctx),
];
