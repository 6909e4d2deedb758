/**
 * Per-account messaging channels: business phone numbers, social accounts and message templates. They are read
 * through the API and connected by the admin command line (the provider onboarding is outside this service).
 */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { MessagingNumber } from './messaging-number.entity.js';
import { MessagingTemplate, TEMPLATE_STATUSES, type TemplateComponents, type TemplateStatus } from './messaging-template.entity.js';
import { SocialAccount, type SocialPage } from './social-account.entity.js';
import { existingAccount, requiredText, upperCode } from '../catalogs/account-ref.js';

const E164 = /^\+[1-9]\d{6,14}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const LANGUAGE = /^[a-z]{2,3}(_[A-Z]{2})?$/;
const TEMPLATE_NAME = /^[a-z0-9_]{1,512}$/;
const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'];
/** The provider's limit of body parameters per template. */
const MAX_BODY_PARAMS = 20;

export interface MessagingNumberView {
  id: number;
  phoneNumber: string;
  displayName: string;
  phoneNumberId: string;
  assistantId: string | null;
  canSendMessages: boolean;
  createdAt: string;
}

export interface SocialAccountView {
  id: number;
  platform: string;
  name: string;
  externalId: string;
  pages: SocialPage[];
  createdAt: string;
}

export interface MessagingTemplateView {
  id: number;
  name: string;
  language: string;
  category: string;
  status: TemplateStatus;
  components: TemplateComponents;
  createdAt: string;
}

/** `GET /channels`: every connected number and social account of the account. */
export interface ChannelsView {
  numbers: MessagingNumberView[];
  socialAccounts: SocialAccountView[];
}

export function messagingNumberView(n: MessagingNumber): MessagingNumberView {
  return {
    id: n.id,
    phoneNumber: n.phoneNumber,
    displayName: n.displayName,
    phoneNumberId: n.phoneNumberId,
    assistantId: n.assistantId ?? null,
    canSendMessages: n.canSendMessages,
    createdAt: n.createdAt.toISOString(),
  };
}

export function socialAccountView(s: SocialAccount): SocialAccountView {
  return { id: s.id, platform: s.platform, name: s.name, externalId: s.externalId, pages: s.pages, createdAt: s.createdAt.toISOString() };
}

export function messagingTemplateView(t: MessagingTemplate): MessagingTemplateView {
  return {
    id: t.id,
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    components: t.components,
    createdAt: t.createdAt.toISOString(),
  };
}

export async function listChannels(em: EntityManager, accountId: number): Promise<ChannelsView> {
  const [numbers, socials] = await Promise.all([
    em.find(MessagingNumber, { account: accountId }, { orderBy: { id: 'asc' } }),
    em.find(SocialAccount, { account: accountId }, { orderBy: { id: 'asc' } }),
  ]);
  return { numbers: numbers.map(messagingNumberView), socialAccounts: socials.map(socialAccountView) };
}

/** APPROVED templates only: the others cannot be sent. */
export async function listApprovedTemplates(em: EntityManager, accountId: number): Promise<MessagingTemplate[]> {
  return em.find(MessagingTemplate, { account: accountId, status: 'APPROVED' }, { orderBy: { name: 'asc', language: 'asc', id: 'asc' } });
}

/** The account's number with this business `phoneNumberId`, or null. Callers check `assistantId` and `canSendMessages`. */
export async function findMessagingNumber(em: EntityManager, accountId: number, phoneNumberId: string): Promise<MessagingNumber | null> {
  return em.findOne(MessagingNumber, { account: accountId, phoneNumberId });
}

/** An APPROVED template of the account by name (any language), or null. */
export async function findApprovedTemplate(em: EntityManager, accountId: number, name: string): Promise<MessagingTemplate | null> {
  const [template] = await em.find(MessagingTemplate, { account: accountId, name, status: 'APPROVED' }, { orderBy: { id: 'asc' }, limit: 1 });
  return template ?? null;
}

export interface MessagingNumberInput {
  phoneNumber: string;
  phoneNumberId: string;
  displayName?: string;
  assistantId?: string | null;
  canSendMessages?: boolean;
}

/** Connects a business number to an account; its `phoneNumberId` is unique within the account. */
export async function connectMessagingNumber(em: EntityManager, accountId: number, input: MessagingNumberInput): Promise<MessagingNumber> {
  const account = await existingAccount(em, accountId);
  const phoneNumber = input.phoneNumber.replace(/[\s()-]/g, '');
  if (!E164.test(phoneNumber))
    throw new BadRequestError(`Phone number must be in E.164 format, e.g. +14155550123: "${input.phoneNumber}"`, 'phoneNumber');
  const phoneNumberId = requiredText(input.phoneNumberId, 'phoneNumberId', 64);
  if (input.assistantId) await requireAgentOf(em, accountId, input.assistantId, 'assistantId');
  if (await findMessagingNumber(em, accountId, phoneNumberId)) {
    throw new ConflictError(`Account ${accountId} already has a number with phoneNumberId ${phoneNumberId}`);
  }
  const number = em.create(MessagingNumber, {
    account,
    phoneNumber,
    phoneNumberId,
    displayName: input.displayName?.trim() || phoneNumber,
    assistantId: input.assistantId?.toLowerCase() ?? null,
    canSendMessages: input.canSendMessages ?? true,
  });
  await em.persistAndFlush(number);
  return number;
}

/** What `remove-number` and `remove-social` removed: the row as it was, and the agent it was detached from. */
export interface RemovedConnection {
  removed: { id: number; networkId: string };
  detachedFrom: { agentId: string; name: string | null } | null;
}

/**
 * Removes a number or social account of the account. While an agent answers through it or it receives messages
 * (`channel-settings`), it is refused (409 naming the agent) unless `force` detaches it first.
 */
async function removeConnection(
  em: EntityManager,
  row: MessagingNumber | SocialAccount,
  networkId: string,
  force: boolean,
): Promise<RemovedConnection> {
  const agentId = row.assistantId ?? null;
  const [agent] = agentId ? ((await em.getKnex()('agents').select('name').where({ id: agentId })) as { name: string }[]) : [];
  const detachedFrom = agentId ? { agentId, name: agent?.name ?? null } : null;
  if (!force && (agentId || row.appSecretSealed)) {
    const uses = [
      agentId ? `agent "${agent?.name ?? 'deleted'}" (${agentId}) answers through it` : null,
      row.appSecretSealed ? 'it receives messages (channel-settings)' : null,
    ].filter(Boolean);
    throw new ConflictError(`${networkId} is in use: ${uses.join(' and ')}; detach it first or remove it with --force`);
  }
  await em.removeAndFlush(row);
  return { removed: { id: row.id, networkId }, detachedFrom };
}

export async function removeMessagingNumber(em: EntityManager, accountId: number, phoneNumberId: string, force = false): Promise<RemovedConnection> {
  await existingAccount(em, accountId);
  const number = await findMessagingNumber(em, accountId, phoneNumberId);
  if (!number) throw new NotFoundError(`Account ${accountId} has no messaging number with phoneNumberId ${phoneNumberId}`);
  return removeConnection(em, number, phoneNumberId, force);
}

export async function removeSocialAccount(em: EntityManager, accountId: number, socialAccountId: number, force = false): Promise<RemovedConnection> {
  await existingAccount(em, accountId);
  const social = await em.findOne(SocialAccount, { id: socialAccountId, account: accountId });
  if (!social) throw new NotFoundError(`Account ${accountId} has no social account ${socialAccountId}`);
  return removeConnection(em, social, `social account ${socialAccountId}`, force);
}

/** 400 naming `field` unless `agentId` is an agent of the account: checked before anything is written. */
export async function requireAgentOf(em: EntityManager, accountId: number, agentId: string, field: string): Promise<void> {
  if (!UUID.test(agentId)) throw new BadRequestError(`${field} must be an agent UUID: "${agentId}"`, field);
  const found = await em.getKnex()('agents').where({ id: agentId.toLowerCase(), account_id: accountId }).whereNull('deleted_at').first('id');
  if (!found) throw new BadRequestError(`${field}: account ${accountId} has no agent ${agentId}`, field);
}

export interface SocialAccountInput {
  platform: string;
  name: string;
  externalId?: string;
  pages?: SocialPage[];
}

export async function addSocialAccount(em: EntityManager, accountId: number, input: SocialAccountInput): Promise<SocialAccount> {
  const account = await existingAccount(em, accountId);
  const social = em.create(SocialAccount, {
    account,
    platform: upperCode(input.platform, 'platform'),
    name: requiredText(input.name, 'name'),
    externalId: input.externalId?.trim() || randomDigits(15),
    pages: input.pages ?? [],
  });
  await em.persistAndFlush(social);
  return social;
}

export interface TemplateInput {
  name: string;
  language: string;
  category?: string;
  status?: string;
  /** Builds a body with parameters {{1}}…{{n}} when `components` is not given. */
  bodyParams?: number;
  components?: TemplateComponents;
}

export async function addMessagingTemplate(em: EntityManager, accountId: number, input: TemplateInput): Promise<MessagingTemplate> {
  const account = await existingAccount(em, accountId);
  const name = requiredText(input.name, 'name', 512);
  if (!TEMPLATE_NAME.test(name)) throw new BadRequestError('Template names are lowercase letters, digits and underscores', 'name');
  const language = requiredText(input.language, 'language', 8);
  if (!LANGUAGE.test(language)) throw new BadRequestError(`Invalid template language "${language}"; use a code such as en or pt_BR`, 'language');
  const status = (input.status ?? 'APPROVED').toUpperCase();
  if (!(TEMPLATE_STATUSES as readonly string[]).includes(status))
    throw new BadRequestError(`status must be one of ${TEMPLATE_STATUSES.join(', ')}`, 'status');
  const category = (input.category ?? 'UTILITY').toUpperCase();
  if (!TEMPLATE_CATEGORIES.includes(category)) throw new BadRequestError(`category must be one of ${TEMPLATE_CATEGORIES.join(', ')}`, 'category');
  const bodyParams = input.bodyParams ?? 0;
  if (!Number.isInteger(bodyParams) || bodyParams < 0 || bodyParams > MAX_BODY_PARAMS) {
    throw new BadRequestError(`bodyParams must be an integer from 0 to ${MAX_BODY_PARAMS}`, 'bodyParams');
  }
  if (await em.count(MessagingTemplate, { account, name, language })) {
    throw new ConflictError(`Account ${accountId} already has a template ${name} in ${language}`);
  }
  const template = em.create(MessagingTemplate, {
    account,
    name,
    language,
    category,
    status: status as TemplateStatus,
    components: input.components ?? bodyComponents(bodyParams),
  });
  await em.persistAndFlush(template);
  return template;
}

function bodyComponents(count: number): TemplateComponents {
  const ids = Array.from({ length: count }, (_, i) => String(i + 1));
  return {
    header: null,
    body: { text: ['Hello', ...ids.map((id) => `{{${id}}}`)].join(' '), parameters: ids.map((id) => ({ id })) },
    buttons: [],
  };
}

function randomDigits(length: number): string {
  return Array.from(randomBytes(length), (b) => String(b % 10))
    .join('')
    .replace(/^0/, '1');
}
