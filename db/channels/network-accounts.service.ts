/**
 * The network accounts agents talk through on WhatsApp, Messenger and Instagram: a connected messaging number
 * (`messaging`, by its phone-number id) or a social account's page or Instagram account (`facebook`, `instagram`, by
 * `messagingId`), with the agent that answers, the webhook's verify token (hashed: only compared) and app secret, and
 * the Send API's base URL and access token (sealed with SETTINGS_ENCRYPTION_KEY: used again). Set by the admin
 * command line (`channel-settings`); read by the webhook and the delivery activities in one shape.
 */
import { createHash } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, ConflictError, NotFoundError } from '../../lib/errors.js';
import { META_GRAPH_URL, type MetaChannel } from '../../lib/channels/meta-protocol.js';
import { secretHint, type SecretBox } from '../../lib/secret-box.js';
import { MessagingNumber } from './messaging-number.entity.js';
import { SocialAccount } from './social-account.entity.js';
import { findMessagingNumber, requireAgentOf } from './numbers-and-pages.service.js';
import { httpBaseUrl, SETTINGS_KEY_MISSING } from './messaging-settings.service.js';

/** One connected network account, whatever table holds it. */
export interface NetworkConnection {
  channel: MetaChannel;
  /** Row id in messaging_numbers (`messaging`) or social_accounts. */
  connectionId: number;
  accountId: number;
  /** The phone-number id, page id or Instagram account id. */
  networkId: string;
  agentId: string | null;
  verifyTokenHash: string | null;
  appSecretSealed: string;
  /** The Send API's base URL (null: the default, Meta's Graph API or, for numbers, MESSAGING_API_URL). */
  sendApiUrl: string | null;
  accessTokenSealed: string | null;
}

export const PLATFORMS: Record<Exclude<MetaChannel, 'messaging'>, string> = { facebook: 'FACEBOOK', instagram: 'INSTAGRAM' };

export const hashVerifyToken = (token: string) => createHash('sha256').update(token).digest('hex');

function ofNumber(n: MessagingNumber): NetworkConnection {
  return {
    channel: 'messaging',
    connectionId: n.id,
    accountId: n.account.id,
    networkId: n.phoneNumberId,
    agentId: n.assistantId ?? null,
    verifyTokenHash: n.webhookVerifyTokenHash ?? null,
    appSecretSealed: n.appSecretSealed!,
    sendApiUrl: n.cloudApiUrl ?? null,
    accessTokenSealed: n.cloudApiTokenSealed ?? null,
  };
}

function ofSocial(channel: MetaChannel, s: SocialAccount): NetworkConnection {
  return {
    channel,
    connectionId: s.id,
    accountId: s.account.id,
    networkId: s.messagingId!,
    agentId: s.assistantId ?? null,
    verifyTokenHash: s.webhookVerifyTokenHash ?? null,
    appSecretSealed: s.appSecretSealed!,
    sendApiUrl: s.sendApiUrl ?? null,
    accessTokenSealed: s.accessTokenSealed ?? null,
  };
}

/** Every account of `channel` that receives messages (it has an app secret), or only those with these network ids. */
export async function connectionsOf(em: EntityManager, channel: MetaChannel, networkIds?: string[]): Promise<NetworkConnection[]> {
  if (channel === 'messaging') {
    const numbers = await em.find(MessagingNumber, {
      appSecretSealed: { $ne: null },
      ...(networkIds ? { phoneNumberId: { $in: networkIds } } : {}),
    });
    return numbers.map(ofNumber);
  }
  const socials = await em.find(SocialAccount, {
    platform: PLATFORMS[channel],
    appSecretSealed: { $ne: null },
    messagingId: networkIds ? { $in: networkIds } : { $ne: null },
  });
  return socials.map((s) => ofSocial(channel, s));
}

/** The connection with this row id, when it receives messages on `channel` (its own webhook URL names it); else null. */
export async function connectionById(em: EntityManager, channel: MetaChannel, connectionId: number): Promise<NetworkConnection | null> {
  if (channel === 'messaging') {
    const number = await em.findOne(MessagingNumber, { id: connectionId, appSecretSealed: { $ne: null } });
    return number && ofNumber(number);
  }
  const social = await em.findOne(SocialAccount, {
    id: connectionId,
    platform: PLATFORMS[channel],
    appSecretSealed: { $ne: null },
    messagingId: { $ne: null },
  });
  return social && ofSocial(channel, social);
}

/** The connection a conversation talks through: its account's connected number, page or Instagram account. */
export async function connectionFor(
  em: EntityManager,
  accountId: number,
  channel: MetaChannel,
  networkId: string,
): Promise<NetworkConnection | null> {
  const [found] = (await connectionsOf(em, channel, [networkId])).filter((c) => c.accountId === accountId);
  return found ?? null;
}

export interface ChannelSettingsInput {
  /** The agent that answers this number/page/account (a UUID). */
  agentId?: string;
  verifyToken?: string;
  appSecret?: string;
  accessToken?: string;
  /** The Send API's base URL (default Meta's Graph API). */
  baseUrl?: string;
  /** Stop receiving messages: forget the verify token, app secret and access token. */
  clear?: boolean;
}

export interface ChannelSettingsView {
  channel: MetaChannel;
  networkId: string;
  /** The number's or social account's id, which names its own callback URL. */
  connectionId: number;
  /** The callback URL's path for Meta's app settings: its own (the shared `/channels/v1/{channel}/webhook` works too). */
  webhookPath: string;
  agentId: string | null;
  receives: boolean;
  sendApiUrl: string;
  appSecretHint: string | null;
  accessTokenHint: string | null;
}

/** The social account of `channel` that holds `networkId` as its own id or one of its pages. */
async function socialHolding(em: EntityManager, accountId: number, channel: Exclude<MetaChannel, 'messaging'>, networkId: string) {
  const socials = await em.find(SocialAccount, { account: accountId, platform: PLATFORMS[channel] }, { orderBy: { id: 'asc' } });
  return (
    socials.find((s) => s.messagingId === networkId) ?? socials.find((s) => s.externalId === networkId || s.pages.some((p) => p.id === networkId))
  );
}

/**
 * Connects (or updates, or clears) the messaging of a number, page or Instagram account: the account's number with
 * phone-number id `networkId` (`connect-number` first), or its social account of the platform whose id or page is
 * `networkId` (`add-social` first). A network id receives messages in one account only (409 otherwise).
 */
export async function setChannelSettings(
  em: EntityManager,
  box: SecretBox | null,
  accountId: number,
  channel: MetaChannel,
  networkId: string,
  input: ChannelSettingsInput,
): Promise<ChannelSettingsView> {
  if (input.agentId !== undefined) await requireAgentOf(em, accountId, input.agentId, 'agentId');
  const row = channel === 'messaging' ? await findMessagingNumber(em, accountId, networkId) : await socialHolding(em, accountId, channel, networkId);
  if (!row) {
    throw new NotFoundError(
      channel === 'messaging'
        ? `Account ${accountId} has no messaging number with phoneNumberId ${networkId} (connect-number first)`
        : `Account ${accountId} has no ${PLATFORMS[channel]} social account with id or page ${networkId} (add-social first)`,
    );
  }
  const seal = (secret: string, name: string) => {
    if (!secret.trim()) throw new BadRequestError(`${name} must not be empty`, name);
    if (!box) throw new BadRequestError(SETTINGS_KEY_MISSING, name);
    return box.seal(secret.trim());
  };
  const isNumber = row instanceof MessagingNumber;
  if (input.clear) {
    row.webhookVerifyTokenHash = null;
    row.appSecretSealed = null;
    row.appSecretHint = null;
    if (!isNumber) Object.assign(row, { accessTokenSealed: null, accessTokenHint: null, messagingId: null });
  } else {
    if (input.verifyToken !== undefined) {
      if (!input.verifyToken.trim()) throw new BadRequestError('verifyToken must not be empty', 'verifyToken');
      row.webhookVerifyTokenHash = hashVerifyToken(input.verifyToken.trim());
    }
    if (input.appSecret !== undefined) {
      row.appSecretSealed = seal(input.appSecret, 'appSecret');
      row.appSecretHint = secretHint(input.appSecret.trim());
    }
    if (input.accessToken !== undefined) {
      const sealed = seal(input.accessToken, 'accessToken');
      const hint = secretHint(input.accessToken.trim());
      if (isNumber) Object.assign(row, { cloudApiTokenSealed: sealed, cloudApiTokenHint: hint });
      else Object.assign(row, { accessTokenSealed: sealed, accessTokenHint: hint });
    }
    if (input.baseUrl !== undefined) {
      if (isNumber) row.cloudApiUrl = httpBaseUrl(input.baseUrl);
      else row.sendApiUrl = httpBaseUrl(input.baseUrl);
    }
    if (input.agentId !== undefined) row.assistantId = input.agentId.toLowerCase();
    if (!isNumber) row.messagingId = networkId;
    if (isNumber && row.cloudApiTokenSealed && !row.cloudApiUrl) row.cloudApiUrl = META_GRAPH_URL;
    if (!row.appSecretSealed) throw new BadRequestError('appSecret is required: it verifies the webhook deliveries', 'appSecret');
    if (!row.webhookVerifyTokenHash) throw new BadRequestError('verifyToken is required: Meta sends it to verify the webhook', 'verifyToken');
    if (!(isNumber ? row.cloudApiTokenSealed : row.accessTokenSealed))
      throw new BadRequestError('accessToken is required: replies are sent with it', 'accessToken');
  }
  try {
    await em.flush();
  } catch (error) {
    if ((error as { code?: string }).code === '23505' || /unique/i.test((error as Error).message))
      throw new ConflictError(`${networkId} already receives ${channel} messages in another account`);
    throw error;
  }
  return {
    channel,
    networkId,
    connectionId: row.id,
    webhookPath: `/channels/v1/${channel}/webhook/${row.id}`,
    agentId: row.assistantId ?? null,
    receives: !!row.appSecretSealed,
    sendApiUrl: (isNumber ? row.cloudApiUrl : row.sendApiUrl) ?? META_GRAPH_URL,
    appSecretHint: row.appSecretHint ?? null,
    accessTokenHint: (isNumber ? row.cloudApiTokenHint : row.accessTokenHint) ?? null,
  };
}
