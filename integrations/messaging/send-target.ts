/**
 * Which Send API a network account sends through (and downloads its media through): its own base URL and access
 * token when it has a token (admin CLI `channel-settings` or `messaging-settings`, sealed with
 * SETTINGS_ENCRYPTION_KEY), else, for WhatsApp numbers, the worker's MESSAGING_API_URL and MESSAGING_API_TOKEN.
 * Each caller says in its own words why there is none: the delivery of a reply, the download of a voice message,
 * a SEND_MESSAGING_MESSAGE node.
 */
import { META_GRAPH_URL, type MetaChannel } from '../../lib/channels/meta-protocol.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { MessagingConfig } from './cloud-api-messaging.js';

/** A network account's own Send API settings, as stored (a connection of db/channels/network-accounts.service.ts has them). */
export interface OwnSendApi {
  channel: MetaChannel;
  /** null: Meta's Graph API. */
  sendApiUrl: string | null;
  accessTokenSealed: string | null;
}

/** Why there is no Send API: the account has a token this key cannot open, or neither a token nor a fallback. */
export type NoSendTarget = { missing: 'undecryptable' | 'no-token' };

/** The base URL and token to send with, or why there are none; `fallback` is the worker's, for WhatsApp numbers only. */
export function sendTargetOf(
  own: OwnSendApi,
  secrets: SecretBox | null | undefined,
  fallback: MessagingConfig | null | undefined,
): MessagingConfig | NoSendTarget {
  if (own.accessTokenSealed) {
    const token = secrets?.open(own.accessTokenSealed);
    if (!token) return { missing: 'undecryptable' };
    return { baseUrl: own.sendApiUrl ?? META_GRAPH_URL, token };
  }
  if (own.channel === 'messaging' && fallback) return fallback;
  return { missing: 'no-token' };
}
