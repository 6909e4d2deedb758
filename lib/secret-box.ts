/**
 * Secrets agentry must use again (a messaging number's Cloud API token), as opposed to secrets it only verifies
 * (API keys, webhook tokens: stored hashed). They are sealed with AES-256-GCM under SETTINGS_ENCRYPTION_KEY: the
 * database holds `v1.<iv>.<tag>.<ciphertext>` (base64url), never the secret. A key that differs from the one that
 * sealed a value fails to open it (the tag does not match) instead of answering garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

export class SecretBox {
  private constructor(private readonly key: Buffer) {}

  /** A box from the 32-byte key, given as 64 hex digits or as base64; null when the text is not such a key. */
  static fromKey(text: string): SecretBox | null {
    const trimmed = text.trim();
    const key = /^[0-9a-f]{64}$/i.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
    return key.length === 32 ? new SecretBox(key) : null;
  }

  seal(secret: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return [VERSION, iv, cipher.getAuthTag(), sealed].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  /** The secret, or null when `sealed` was not sealed with this key (or is damaged). */
  open(sealed: string): string | null {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== VERSION || !iv || !tag || data === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

/** How a secret is shown back: its last 4 characters only. */
export function secretHint(secret: string): string {
  return secret.length > 8 ? `…${secret.slice(-4)}` : '…';
}
