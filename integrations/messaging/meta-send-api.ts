/**
 * The Send APIs of Meta's networks, for an agent's text replies: WhatsApp's Cloud API
 * (`POST {base}/{phone-number-id}/messages`, type text) and the Graph Send API of Messenger and Instagram
 * (`POST {base}/{page-or-instagram-id}/messages` with `recipient.id` and `message.text`), with a Bearer access token.
 * A text longer than the network takes is sent in parts. Failures are sorted by `sendFailureOf` (retried, window
 * closed, refused); a connection that fails is retried.
 */
import { sendFailureOf, type MetaChannel, type SendFailure } from '../../lib/channels/meta-protocol.js';

export interface SendTarget {
  channel: MetaChannel;
  baseUrl: string;
  token: string;
  /** The phone-number id, page id or Instagram account id the reply is sent from. */
  networkId: string;
  /** The person: their WhatsApp id, page-scoped or Instagram-scoped id. */
  to: string;
}

export type SendResult = { ok: true; externalId: string } | { ok: false; failure: SendFailure };

/** Characters of one text message: WhatsApp 4096, Messenger 2000, Instagram 1000. */
const TEXT_LIMIT: Record<MetaChannel, number> = { messaging: 4096, facebook: 2000, instagram: 1000 };

/** `text` in parts of at most `limit` characters, cut at a line or word break where there is one. */
export function textParts(text: string, limit: number): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > limit) {
    const window = rest.slice(0, limit);
    const cut = Math.max(window.lastIndexOf('\n'), window.lastIndexOf(' '));
    const at = cut > limit / 2 ? cut : limit;
    parts.push(rest.slice(0, at).trim());
    rest = rest.slice(at).trim();
  }
  if (rest) parts.push(rest);
  return parts;
}

function bodyOf(target: SendTarget, text: string): Record<string, unknown> {
  if (target.channel === 'messaging') {
    return { messaging_product: 'whatsapp', recipient_type: 'individual', to: target.to, type: 'text', text: { body: text, preview_url: false } };
  }
  return { recipient: { id: target.to }, messaging_type: 'RESPONSE', message: { text } };
}

async function sendPart(target: SendTarget, text: string, signal: AbortSignal, timeoutMs: number): Promise<SendResult> {
  let response: Response;
  try {
    // The operator's endpoint (set with the admin CLI), not a user's: outside the outbound address policy.
    response = await fetch(`${target.baseUrl}/${encodeURIComponent(target.networkId)}/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${target.token}`, 'content-type': 'application/json' },
      body: JSON.stringify(bodyOf(target, text)),
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    });
  } catch (error) {
    if (signal.aborted) throw error;
    return { ok: false, failure: { kind: 'retry', message: `The send API did not answer: ${(error as Error).message}` } };
  }
  const raw = await response.text().catch(() => '');
  let body: Record<string, any> = {};
  try {
    body = JSON.parse(raw);
  } catch {
    body = { error: { message: raw.slice(0, 300) || `HTTP ${response.status}` } };
  }
  if (!response.ok) return { ok: false, failure: sendFailureOf(target.channel, response.status, body) };
  const externalId = target.channel === 'messaging' ? body.messages?.[0]?.id : body.message_id;
  if (typeof externalId !== 'string' || !externalId)
    return { ok: false, failure: { kind: 'retry', message: 'The send API answered without a message id' } };
  return { ok: true, externalId };
}

/** Sends the text (in parts when long); answers the network's id of its last part, or the first failure. */
export async function sendText(target: SendTarget, text: string, signal: AbortSignal, timeoutMs: number): Promise<SendResult> {
  let last: SendResult = { ok: false, failure: { kind: 'refused', message: 'The message is empty' } };
  for (const part of textParts(text, TEXT_LIMIT[target.channel])) {
    last = await sendPart(target, part, signal, timeoutMs);
    if (!last.ok) return last;
  }
  return last;
}
