/**
 * Per-number Cloud API settings of messaging numbers: the base URL and token SEND_MESSAGING_MESSAGE nodes use when
 * they send from the number (different numbers may belong to different business accounts of the messaging product).
 * The token has to be sent again, so it cannot be hashed: it is sealed with SETTINGS_ENCRYPTION_KEY (AES-256-GCM)
 * and only its last characters are ever shown. Set through the admin command line.
 */
import type { EntityManager } from '@mikro-orm/postgresql';
import { BadRequestError, NotFoundError } from '../../lib/errors.js';
import { secretHint, type SecretBox } from '../../lib/secret-box.js';
import type { MessagingNumber } from './messaging-number.entity.js';
import { findMessagingNumber } from './numbers-and-pages.service.js';

export interface MessagingSettingsInput {
  /** The Cloud API base URL, e.g. https://graph.example.com/v21.0. */
  baseUrl?: string;
  token?: string;
  /** Forget the number's settings: it sends through MESSAGING_API_URL again. */
  clear?: boolean;
}

export interface MessagingSettingsView {
  phoneNumberId: string;
  phoneNumber: string;
  /** null: the number uses the worker's MESSAGING_API_URL and MESSAGING_API_TOKEN. */
  cloudApiUrl: string | null;
  /** The token's last 4 characters, never the token. */
  tokenHint: string | null;
}

export const SETTINGS_KEY_MISSING = 'SETTINGS_ENCRYPTION_KEY is not set: a messaging token cannot be stored without encrypting it';

export function messagingSettingsView(n: MessagingNumber): MessagingSettingsView {
  return { phoneNumberId: n.phoneNumberId, phoneNumber: n.phoneNumber, cloudApiUrl: n.cloudApiUrl ?? null, tokenHint: n.cloudApiTokenHint ?? null };
}

/** An http(s) base URL as stored: trimmed, without a trailing slash; 400 naming `baseUrl` otherwise. */
export function httpBaseUrl(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text.trim());
  } catch {
    url = undefined;
  }
  if (!url || !['http:', 'https:'].includes(url.protocol)) throw new BadRequestError(`baseUrl must be an http(s) URL, got "${text}"`, 'baseUrl');
  return text.trim().replace(/\/+$/, '');
}

/** Sets (or clears) the Cloud API settings of the account's number `phoneNumberId`; a number ends with both or neither. */
export async function setMessagingSettings(
  em: EntityManager,
  box: SecretBox | null,
  accountId: number,
  phoneNumberId: string,
  input: MessagingSettingsInput,
): Promise<MessagingSettingsView> {
  const number = await findMessagingNumber(em, accountId, phoneNumberId);
  if (!number) throw new NotFoundError(`Account ${accountId} has no messaging number with phoneNumberId ${phoneNumberId}`);
  if (input.clear) {
    if (input.baseUrl !== undefined || input.token !== undefined) throw new BadRequestError('clear excludes baseUrl and token', 'clear');
    Object.assign(number, { cloudApiUrl: null, cloudApiTokenSealed: null, cloudApiTokenHint: null });
  } else {
    if (input.baseUrl === undefined && input.token === undefined) throw new BadRequestError('Give baseUrl, token or both (or clear)', 'baseUrl');
    if (input.baseUrl !== undefined) number.cloudApiUrl = httpBaseUrl(input.baseUrl);
    if (input.token !== undefined) {
      const token = input.token.trim();
      if (!token) throw new BadRequestError('token must not be empty', 'token');
      if (!box) throw new BadRequestError(SETTINGS_KEY_MISSING, 'token');
      number.cloudApiTokenSealed = box.seal(token);
      number.cloudApiTokenHint = secretHint(token);
    }
    if (!number.cloudApiUrl) throw new BadRequestError('baseUrl is required: the number has no Cloud API URL yet', 'baseUrl');
    if (!number.cloudApiTokenSealed) throw new BadRequestError('token is required: the number has no Cloud API token yet', 'token');
  }
  await em.flush();
  return messagingSettingsView(number);
}
