/**
 * Which Cloud API a SEND_MESSAGING_MESSAGE node sends through: the sending number's own settings (admin CLI
 * `messaging-settings`, token sealed with SETTINGS_ENCRYPTION_KEY), else the worker's MESSAGING_API_URL and
 * MESSAGING_API_TOKEN, else the node fails with one message naming both ways.
 */
import type { MessagingNumber } from '../../db/channels/messaging-number.entity.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { MessagingConfig } from './cloud-api-messaging.js';
import { NodeError } from '../../lib/errors.js';

export function messagingNotConfigured(phoneNumberId: string): string {
  return (
    `Messaging is not configured for number ${phoneNumberId}: set its Cloud API URL and token with ` +
    '`npm run admin -- messaging-settings`, or MESSAGING_API_URL and MESSAGING_API_TOKEN on the worker'
  );
}

export function messagingConfigOf(
  number: MessagingNumber | null,
  phoneNumberId: string,
  secrets: SecretBox | null | undefined,
  fallback: MessagingConfig | null | undefined,
): MessagingConfig {
  if (number?.cloudApiUrl && number.cloudApiTokenSealed) {
    const token = secrets?.open(number.cloudApiTokenSealed);
    if (!token) {
      throw new NodeError(
        `The Cloud API token of number ${phoneNumberId} cannot be decrypted: the worker needs the SETTINGS_ENCRYPTION_KEY it was stored with`,
        'MessagingNotConfigured',
      );
    }
    return { baseUrl: number.cloudApiUrl, token };
  }
  if (fallback) return fallback;
  throw new NodeError(messagingNotConfigured(phoneNumberId), 'MessagingNotConfigured');
}
