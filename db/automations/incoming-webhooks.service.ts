/**
 * Incoming webhooks (SPEC.md, Incoming webhook; Authentication rule 7; Events). A webhook is created with a
 * 64-character access token shown once and kept only as its SHA-256 hash; each accepted call becomes an
 * INCOMING_WEBHOOK outbox event (DESIGN.md, Events that start runs), which starts the subscribed runs (the calls:
 * webhook-calls.ts).
 */
import { createHash, randomInt } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { Account } from '../accounts/account.entity.js';
import { IncomingWebhook } from './incoming-webhook.entity.js';

/** Outbox event type of an accepted webhook call. */
export const INCOMING_WEBHOOK_EVENT = 'INCOMING_WEBHOOK';
export const WEBHOOK_TOKEN_LENGTH = 64;
export const WEBHOOK_NAME_MAX_LENGTH = 255;
export const WEBHOOK_ID_PATTERN = /^wh_[A-Za-z0-9]{24}$/;
const TOKEN_PREFIX_LENGTH = 8;
const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `length` uniformly random letters and digits from the CSPRNG. */
function randomBase62(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[randomInt(BASE62.length)];
  return out;
}

/** The SHA-256 digest of an access token, as a webhook keeps it (hex) and a call's token is compared with it. */
export function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

export interface IncomingWebhookInput {
  name: string;
  description?: string | null;
  useAuthentication?: boolean;
}

export interface CreatedWebhook {
  webhook: IncomingWebhook;
  /** Returned once, only when useAuthentication is true; never stored. */
  accessToken?: string;
}

export interface IncomingWebhookView {
  id: string;
  name: string;
  description: string | null;
  url: string;
  isActive: boolean;
  useAuthentication: boolean;
  accessToken?: string;
  createdAt: string;
  updatedAt: string;
}

/** The URL external systems POST to: `{publicBaseUrl}/webhooks/{id}`, outside `/public/v1`. */
export function webhookUrl(publicBaseUrl: string, id: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/webhooks/${id}`;
}

export function webhookView(webhook: IncomingWebhook, publicBaseUrl: string, accessToken?: string): IncomingWebhookView {
  return {
    id: webhook.id,
    name: webhook.name,
    description: webhook.description ?? null,
    url: webhookUrl(publicBaseUrl, webhook.id),
    isActive: webhook.isActive,
    useAuthentication: webhook.useAuthentication,
    ...(accessToken !== undefined ? { accessToken } : {}),
    createdAt: webhook.createdAt.toISOString(),
    updatedAt: webhook.updatedAt.toISOString(),
  };
}

/** Creates a webhook; with useAuthentication (the default) also its access token, returned here only. */
/** A webhook name without surrounding spaces, 1 to 255 characters. */
function checkedName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  if (name.length < 1 || name.length > WEBHOOK_NAME_MAX_LENGTH) {
    const message = `must be between 1 and ${WEBHOOK_NAME_MAX_LENGTH} characters (leading and trailing spaces do not count)`;
    throw new BadRequestError(`name ${message}`, [{ code: 'invalid', path: 'name', message }]);
  }
  return name;
}

export async function createIncomingWebhook(em: EntityManager, accountId: number, input: IncomingWebhookInput): Promise<CreatedWebhook> {
  const name = checkedName(input.name);
  const useAuthentication = input.useAuthentication ?? true;
  const accessToken = useAuthentication ? randomBase62(WEBHOOK_TOKEN_LENGTH) : undefined;
  const webhook = em.create(IncomingWebhook, {
    id: `wh_${randomBase62(24)}`,
    account: em.getReference(Account, accountId),
    name,
    description: input.description ?? null,
    isActive: true,
    useAuthentication,
    tokenHash: accessToken ? tokenHash(accessToken).toString('hex') : null,
    tokenPrefix: accessToken ? accessToken.slice(0, TOKEN_PREFIX_LENGTH) : null,
  });
  await em.persistAndFlush(webhook);
  return accessToken ? { webhook, accessToken } : { webhook };
}

/** The webhook if it exists and belongs to the account, else null (WEBHOOK node validation, admin). */
export async function findWebhookOfAccount(em: EntityManager, accountId: number, id: string): Promise<IncomingWebhook | null> {
  if (!WEBHOOK_ID_PATTERN.test(id)) return null;
  return em.findOne(IncomingWebhook, { id, account: accountId });
}

/**
 * The webhook whatever its account, else null: a call names it by its id alone (webhook-calls.ts), and so does the
 * admin command line.
 */
export async function findWebhook(em: EntityManager, id: string): Promise<IncomingWebhook | null> {
  if (!WEBHOOK_ID_PATTERN.test(id)) return null;
  return em.findOne(IncomingWebhook, { id });
}

/** A webhook of the account, or 404. */
export async function requireWebhook(em: EntityManager, accountId: number, id: string): Promise<IncomingWebhook> {
  const webhook = await findWebhookOfAccount(em, accountId, id);
  if (!webhook) throw new NotFoundError(`Incoming webhook ${id} not found`);
  return webhook;
}

/** The account's webhooks, oldest first. */
export async function listIncomingWebhooks(em: EntityManager, accountId: number): Promise<IncomingWebhook[]> {
  return em.find(IncomingWebhook, { account: accountId }, { orderBy: { createdAt: 'asc', id: 'asc' } });
}

export interface IncomingWebhookPatch {
  name?: string;
  description?: string | null;
  isActive?: boolean;
  useAuthentication?: boolean;
}

/** Gives the webhook a new access token, returned once; the previous one stops working at once. */
function issueToken(webhook: IncomingWebhook): string {
  const accessToken = randomBase62(WEBHOOK_TOKEN_LENGTH);
  webhook.tokenHash = tokenHash(accessToken).toString('hex');
  webhook.tokenPrefix = accessToken.slice(0, TOKEN_PREFIX_LENGTH);
  return accessToken;
}

/**
 * Changes a webhook's name, description, `isActive` or `useAuthentication`. Turning authentication on issues an
 * access token (returned once); turning it off forgets the token.
 */
export async function updateIncomingWebhook(em: EntityManager, accountId: number, id: string, patch: IncomingWebhookPatch): Promise<CreatedWebhook> {
  const webhook = await requireWebhook(em, accountId, id);
  if (patch.name !== undefined) webhook.name = checkedName(patch.name);
  if (patch.description !== undefined) webhook.description = patch.description;
  if (patch.isActive !== undefined) webhook.isActive = patch.isActive;
  let accessToken: string | undefined;
  if (patch.useAuthentication !== undefined && patch.useAuthentication !== webhook.useAuthentication) {
    webhook.useAuthentication = patch.useAuthentication;
    if (patch.useAuthentication) accessToken = issueToken(webhook);
    else webhook.tokenHash = webhook.tokenPrefix = null;
  }
  await em.flush();
  return accessToken ? { webhook, accessToken } : { webhook };
}

/** Replaces the access token of an authenticated webhook (409 for one without authentication). */
export async function rotateWebhookToken(em: EntityManager, accountId: number, id: string): Promise<CreatedWebhook> {
  const webhook = await requireWebhook(em, accountId, id);
  if (!webhook.useAuthentication) throw new ConflictError(`Incoming webhook ${id} does not use authentication, so it has no token to rotate`);
  const accessToken = issueToken(webhook);
  await em.flush();
  return { webhook, accessToken };
}

/** A workflow whose draft or live graph names a webhook. */
export interface WebhookReference {
  workflowId: number;
  name: string;
  nodeIds: string[];
}

/** The account's workflows (not deleted) whose draft or live graph has a node listing the webhook. */
export async function automationsNamingWebhook(em: EntityManager, accountId: number, id: string): Promise<WebhookReference[]> {
  const result = await em.getKnex().raw(
    `select w.id, w.name, array_agg(distinct n.node->>'nodeId' order by n.node->>'nodeId') as node_ids
       from workflows w
       join graph_snapshots s on s.id in (w.live_snapshot_id, w.draft_snapshot_id)
       cross join lateral jsonb_array_elements(s.nodes::jsonb) as n(node)
      where w.account_id = ? and w.deleted_at is null and n.node->'data'->'triggerByWebhookIds' @> to_jsonb(?::text)
      group by w.id, w.name order by w.id`,
    [accountId, id],
  );
  return result.rows.map((r: { id: number; name: string; node_ids: string[] }) => ({ workflowId: r.id, name: r.name, nodeIds: r.node_ids }));
}

/**
 * Deletes a webhook: calls to it answer 404 from then on. Workflows whose nodes list it keep the id (their next edit
 * of such a node is refused until it is removed) and are reported, so the caller can fix them.
 */
export async function deleteIncomingWebhook(
  em: EntityManager,
  accountId: number,
  id: string,
): Promise<{ id: string; referencedBy: WebhookReference[] }> {
  const webhook = await requireWebhook(em, accountId, id);
  const referencedBy = await automationsNamingWebhook(em, accountId, id);
  await em.removeAndFlush(webhook);
  return { id, referencedBy };
}
