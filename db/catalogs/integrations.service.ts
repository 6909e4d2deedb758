/** Per-account connected third-party accounts (`/integrations`), whose ids nodes name as `connectedAccountId`. */
import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError } from '../../lib/errors.js';
import { CONNECTED_ACCOUNT_STATUSES, ConnectedAccount, type ConnectedAccountStatus } from './connected-account.entity.js';
import { existingAccount, requiredText, upperCode } from './account-ref.js';

export interface ConnectedAccountView {
  /** The `connectedAccountId` of nodes and agent settings. */
  id: number;
  toolkit: string;
  label: string;
  externalId: string;
  status: ConnectedAccountStatus;
  createdAt: string;
}

export function connectedAccountView(c: ConnectedAccount): ConnectedAccountView {
  return { id: c.id, toolkit: c.toolkit, label: c.label, externalId: c.externalId, status: c.status, createdAt: c.createdAt.toISOString() };
}

/** The account's connected accounts, optionally of one toolkit (case-insensitive), oldest first. */
export async function listConnectedAccounts(em: EntityManager, accountId: number, toolkit?: string): Promise<ConnectedAccount[]> {
  const wanted = toolkit?.trim().toUpperCase();
  return em.find(ConnectedAccount, { account: accountId, ...(wanted && { toolkit: wanted }) }, { orderBy: { id: 'asc' } });
}

/** The account's connected account with this id, or null (also for another account's). Callers check `status`. */
export async function findConnectedAccount(em: EntityManager, accountId: number, id: number): Promise<ConnectedAccount | null> {
  if (!Number.isInteger(id) || id <= 0 || id > 2147483647) return null;
  return em.findOne(ConnectedAccount, { id, account: accountId });
}

export interface ConnectedAccountInput {
  toolkit: string;
  label: string;
  externalId?: string;
  status?: string;
}

export async function connectAccount(em: EntityManager, accountId: number, input: ConnectedAccountInput): Promise<ConnectedAccount> {
  const account = await existingAccount(em, accountId);
  const status = (input.status ?? 'ACTIVE').toUpperCase();
  if (!(CONNECTED_ACCOUNT_STATUSES as readonly string[]).includes(status)) {
    throw new BadRequestError(`status must be one of ${CONNECTED_ACCOUNT_STATUSES.join(', ')}`, 'status');
  }
  const connected = em.create(ConnectedAccount, {
    account,
    toolkit: upperCode(input.toolkit, 'toolkit'),
    label: requiredText(input.label, 'label'),
    externalId: input.externalId?.trim() || `ca_${randomBytes(9).toString('base64url')}`,
    status: status as ConnectedAccountStatus,
  });
  await em.persistAndFlush(connected);
  return connected;
}
