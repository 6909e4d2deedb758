/**
 * Meta's messaging protocol, as agentry speaks it for WhatsApp Cloud API (`messaging`), Messenger (`facebook`) and
 * Instagram (`instagram`): the webhook signature (`X-Hub-Signature-256: sha256=<hex HMAC-SHA256(app secret, raw
 * body)>`), the deliveries' batched payloads read into one event per message or status, and the Send API's errors
 * sorted into retried, window closed and refused. Pure: the API, the activities and the tests share it.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The agent channels that are Meta networks. `messaging` is WhatsApp: SPEC.md writes the messaging product's name as
 * the neutral word MESSAGING everywhere (its naming note), so the channel, the SEND_MESSAGING_MESSAGE node, the
 * messaging numbers and the `/channels/messaging/...` paths keep that word in code too.
 */
export const META_CHANNELS = ['messaging', 'instagram', 'facebook'] as const;
export type MetaChannel = (typeof META_CHANNELS)[number];

export const isMetaChannel = (channel: string): channel is MetaChannel => (META_CHANNELS as readonly string[]).includes(channel);

/** Meta's Graph API, the default base URL of the send APIs. */
export const META_GRAPH_URL = 'https://graph.facebook.com/v21.0';

/** The header of a delivery's signature. */
export const SIGNATURE_HEADER = 'x-hub-signature-256';

/** `sha256=<hex>` of the body under `secret`, as Meta signs deliveries. */
export function signatureOf(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** Whether `header` has the form of a signature (`sha256=` and 64 hex digits): checked before any work. */
export const isSignatureHeader = (header: string | undefined): header is string => !!header && /^sha256=[0-9a-f]{64}$/i.test(header.trim());

/** Whether `header` is the signature of `body` under `secret`, compared in constant time: one HMAC. */
export function signedWith(body: Buffer, header: string, secret: string): boolean {
  return timingSafeEqual(Buffer.from(signatureOf(secret, body)), Buffer.from(header.trim().toLowerCase()));
}

/** The network ids (phone-number ids, page or Instagram account ids) a delivery's events are for, in order. */
export function networkIdsOf(delivery: ParsedDelivery): string[] {
  return [...new Set([...delivery.messages, ...delivery.statuses].map((event) => event.networkAccountId))];
}

/** Outbox event types of the networks, and the workflows they start (worker/direct-starts.ts). */
export const CHANNEL_EVENTS = {
  /** A person's message arrived: `channelInbound` routes it to its agent's conversation. */
  message: 'CHANNEL_MESSAGE',
  /** The network says where an agent's message stands (sent, delivered, read, failed). */
  status: 'CHANNEL_STATUS',
  /** An agent's message waits to be sent: `channelDelivery` of its conversation sends it. */
  delivery: 'CHANNEL_DELIVERY',
} as const;

/** A media attachment of a person's message (what agentry can read of it: audio, through transcription). */
export interface InboundMedia {
  /** audio, image, video, file, sticker, location, … as the network names it (`document` is `file`). */
  type: string;
  /** WhatsApp: the media id (downloaded through the Cloud API); Messenger/Instagram: `url`. */
  mediaId?: string;
  url?: string;
  mimeType?: string;
  caption?: string;
}

/** One person's message, as the webhook carried it. */
export interface InboundMessage {
  /** The number, page or Instagram account it was sent to. */
  networkAccountId: string;
  /** The person: WhatsApp id (their number), page-scoped id, Instagram-scoped id. */
  userId: string;
  userName?: string;
  /** The network's message id (`wamid…`, `m_…`): a message is processed once. */
  messageId: string;
  text?: string;
  media?: InboundMedia;
}

export type NetworkStatus = 'sent' | 'delivered' | 'read' | 'failed';

/** Where an agent's message stands, as the network says. */
export interface InboundStatus {
  networkAccountId: string;
  userId?: string;
  status: NetworkStatus;
  /** The messages it is about; empty with a `watermark` (Messenger's read: everything sent before it). */
  messageIds: string[];
  /** Milliseconds since the epoch. */
  watermark?: number;
  error?: string;
}

export interface ParsedDelivery {
  messages: InboundMessage[];
  statuses: InboundStatus[];
}

type Json = Record<string, any>;

const obj = (value: unknown): Json => (value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {});
const arr = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value ? value : typeof value === 'number' ? String(value) : undefined;

/** WhatsApp's message types read as text, and how. */
function whatsAppText(m: Json): string | undefined {
  switch (m.type) {
    case 'text':
      return str(obj(m.text).body);
    case 'button':
      return str(obj(m.button).text);
    case 'interactive': {
      const i = obj(m.interactive);
      return str(obj(i.button_reply).title) ?? str(obj(i.list_reply).title);
    }
    default:
      return undefined;
  }
}

/** WhatsApp messages that are not a person writing (reactions, system notices, unsupported types) are not answered. */
const WHATSAPP_IGNORED = new Set(['reaction', 'system', 'unsupported', 'ephemeral', 'request_welcome']);

function whatsAppChange(value: Json, into: ParsedDelivery): void {
  const networkAccountId = str(obj(value.metadata).phone_number_id);
  if (!networkAccountId) return;
  const names = new Map(arr(value.contacts).map((c) => [str(obj(c).wa_id), str(obj(obj(c).profile).name)]));
  for (const raw of arr(value.messages)) {
    const m = obj(raw);
    const [userId, messageId] = [str(m.from), str(m.id)];
    if (!userId || !messageId || WHATSAPP_IGNORED.has(m.type)) continue;
    const text = whatsAppText(m);
    const message: InboundMessage = { networkAccountId, userId, messageId, ...(names.get(userId) ? { userName: names.get(userId) } : {}) };
    if (text !== undefined) message.text = text;
    else {
      const type = str(m.type) ?? 'unknown';
      const part = obj(m[type]);
      message.media = {
        type: type === 'document' ? 'file' : type === 'voice' ? 'audio' : type,
        ...(str(part.id) ? { mediaId: str(part.id) } : {}),
        ...(str(part.mime_type) ? { mimeType: str(part.mime_type) } : {}),
        ...(str(part.caption) ? { caption: str(part.caption) } : {}),
      };
    }
    into.messages.push(message);
  }
  for (const raw of arr(value.statuses)) {
    const s = obj(raw);
    const [id, status] = [str(s.id), str(s.status)];
    if (!id || !['sent', 'delivered', 'read', 'failed'].includes(status ?? '')) continue;
    const error = obj(arr(s.errors)[0]);
    const detail = str(obj(error.error_data).details) ?? str(error.message) ?? str(error.title);
    into.statuses.push({
      networkAccountId,
      ...(str(s.recipient_id) ? { userId: str(s.recipient_id) } : {}),
      status: status as NetworkStatus,
      messageIds: [id],
      ...(status === 'failed' ? { error: `${error.code !== undefined ? `(${error.code}) ` : ''}${detail ?? 'failed'}` } : {}),
    });
  }
}

/** One `messaging[]` item of Messenger or Instagram. */
function messagingItem(item: Json, entryId: string | undefined, into: ParsedDelivery): void {
  const userId = str(obj(item.sender).id);
  const networkAccountId = str(obj(item.recipient).id) ?? entryId;
  if (!userId || !networkAccountId) return;
  const message = obj(item.message);
  if (item.message && !message.is_echo && !message.is_deleted) {
    const messageId = str(message.mid);
    if (!messageId) return;
    const text = str(message.text);
    const [attachment] = arr(message.attachments).map(obj);
    const inbound: InboundMessage = { networkAccountId, userId, messageId };
    if (text !== undefined) inbound.text = text;
    else if (attachment)
      inbound.media = {
        type: str(attachment.type) ?? 'unknown',
        ...(str(obj(attachment.payload).url) ? { url: str(obj(attachment.payload).url) } : {}),
      };
    else return;
    into.messages.push(inbound);
    return;
  }
  if (item.postback) {
    const postback = obj(item.postback);
    const messageId = str(postback.mid);
    const text = str(postback.title) ?? str(postback.payload);
    if (messageId && text) into.messages.push({ networkAccountId, userId, messageId, text });
    return;
  }
  // Delivery and read receipts come from the person's side: the agent's messages are for `userId`.
  const delivery = obj(item.delivery);
  if (item.delivery) {
    into.statuses.push({
      networkAccountId,
      userId,
      status: 'delivered',
      messageIds: arr(delivery.mids).flatMap((m) => str(m) ?? []),
      ...(typeof delivery.watermark === 'number' ? { watermark: delivery.watermark } : {}),
    });
  }
  const read = obj(item.read);
  if (item.read) {
    into.statuses.push({
      networkAccountId,
      userId,
      status: 'read',
      messageIds: str(read.mid) ? [str(read.mid)!] : [],
      ...(typeof read.watermark === 'number' ? { watermark: read.watermark } : {}),
    });
  }
}

/** Reads a delivery's JSON into its messages and statuses; anything it does not know is left out. */
export function parseDelivery(channel: MetaChannel, body: unknown): ParsedDelivery {
  const parsed: ParsedDelivery = { messages: [], statuses: [] };
  for (const raw of arr(obj(body).entry)) {
    const entry = obj(raw);
    if (channel === 'messaging') {
      for (const change of arr(entry.changes))
        if (obj(change).field === 'messages' || !obj(change).field) whatsAppChange(obj(obj(change).value), parsed);
    } else {
      for (const item of arr(entry.messaging)) messagingItem(obj(item), str(entry.id), parsed);
    }
  }
  return parsed;
}

/** What to do about a Send API answer that is not a success. */
export type SendFailure =
  | { kind: 'retry'; message: string }
  /** The person has not written for 24 hours: only a template (WhatsApp) or a tagged message may reach them. */
  | { kind: 'window'; message: string }
  | { kind: 'refused'; message: string };

/** Meta's codes of throttling (application, account, pair or business rate limits) and of temporary trouble. */
const RETRIED_CODES = new Set([1, 2, 4, 17, 32, 613, 80007, 130429, 131000, 131016, 131048, 131056, 133004]);
/** The 24-hour customer service window is closed (WhatsApp re-engagement; Messenger and Instagram outside the window). */
const WINDOW_CODES = new Set([131047, 131026]);
const WINDOW_SUBCODES = new Set([2018278, 2534022, 2018108]);

export function sendFailureOf(channel: MetaChannel, status: number, body: unknown): SendFailure {
  const error = obj(obj(body).error);
  const code = typeof error.code === 'number' ? error.code : Number(error.code);
  const subcode = Number(error.error_subcode);
  const detail = str(obj(error.error_data).details) ?? str(error.message) ?? `HTTP ${status}`;
  const message = `${Number.isFinite(code) ? `(${code}) ` : ''}${detail}`;
  if (WINDOW_CODES.has(code) || WINDOW_SUBCODES.has(subcode)) {
    const route =
      channel === 'messaging'
        ? 'send an approved template with a SEND_MESSAGING_MESSAGE node of a workflow to open a new conversation'
        : 'the person has to write again before the agent can reply';
    return { kind: 'window', message: `The 24-hour window to reply has closed ${message}: ${route}` };
  }
  if (status === 429 || status >= 500 || RETRIED_CODES.has(code) || error.is_transient === true) return { kind: 'retry', message };
  return { kind: 'refused', message };
}
