/**
 * A local stand-in for Meta's side of WhatsApp, Messenger and Instagram: it delivers webhooks the way Meta does
 * (batched payloads, signed `X-Hub-Signature-256` with the app secret) and receives the Send API's calls
 * (`POST /{version}/{phone-number-or-page-id}/messages`), recording each and answering a message id, or the failures
 * a test scripts (a 429 once, a closed 24-hour window), or holds a call unanswered (`holdNext`). It also serves media the way the networks do: WhatsApp's
 * Cloud API describes a media id (`GET /{version}/{media-id}` with the number's Bearer token answers `{ url,
 * mime_type, file_size }`) and serves its bytes at that URL (the same Bearer token); Messenger and Instagram
 * attachments are plain URLs (`/cdn/{id}`).
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SentCall {
  /** The phone-number id, page id or Instagram account id in the path. */
  networkId: string;
  authorization?: string;
  body: Record<string, any>;
  /** The id answered. */
  id: string;
  at: number;
}

/** A media file the server holds: its bytes and type, the token it asks for, or the status it fails with. */
export interface FakeMedia {
  bytes: Buffer;
  mimeType: string;
  /** The Bearer token the Cloud API asks for (absent: a Messenger/Instagram attachment URL, no token). */
  token?: string;
  /** Answer this status instead (to the description, or to the bytes with `failBytes`). */
  failWith?: number;
  failBytes?: boolean;
}

/** A media request the server received. */
export interface MediaCall {
  path: string;
  authorization?: string;
  status: number;
}

export class FakeMetaServer {
  /** Media by id (a WhatsApp media id, or the id of a `/cdn/{id}` attachment URL). */
  readonly media = new Map<string, FakeMedia>();
  readonly mediaCalls: MediaCall[] = [];
  readonly sent: SentCall[] = [];
  /** Failures to answer next, in order (then success): an HTTP status and Meta's error body. */
  failures: { status: number; error: Record<string, unknown> }[] = [];
  /** Calls answered with a failure. */
  refused = 0;
  /** Send calls to hold unanswered, the next ones first (a test kills the worker making one): they go to `held`, not `sent`. */
  holdNext = 0;
  /** Send calls held unanswered; a test drops them (`res.destroy()`): Meta never took them. */
  readonly held: { networkId: string; body: Record<string, any>; res: ServerResponse }[] = [];
  private server?: Server;
  private counter = 0;
  private waiters: (() => void)[] = [];
  baseUrl = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      if (req.method === 'GET') return this.serveMedia(req.url!, req.headers.authorization, res);
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        if (this.holdNext > 0) {
          this.holdNext -= 1;
          this.held.push({ networkId: decodeURIComponent(req.url!.split('/')[2] ?? ''), body: JSON.parse(raw), res });
          return;
        }
        const failure = this.failures.shift();
        if (failure) {
          this.refused += 1;
          return res.writeHead(failure.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: failure.error }));
        }
        const networkId = decodeURIComponent(req.url!.split('/')[2] ?? '');
        const body = JSON.parse(raw);
        const whatsApp = body.messaging_product === 'whatsapp';
        const id = whatsApp ? `wamid.out.${++this.counter}` : `m_out_${++this.counter}`;
        this.sent.push({ networkId, authorization: req.headers.authorization, body, id, at: performance.now() });
        for (const wake of this.waiters.splice(0)) wake();
        const answer = whatsApp
          ? { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id }] }
          : { recipient_id: body.recipient?.id, message_id: id };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.baseUrl = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v21.0`;
  }

  /** `GET /{version}/{media-id}` (its description), `GET /media/{id}` (its bytes) and `GET /cdn/{id}` (an attachment). */
  private serveMedia(url: string, authorization: string | undefined, res: ServerResponse): void {
    const [, first, id = ''] = url.split('?')[0]!.split('/').map(decodeURIComponent);
    const media = this.media.get(id);
    const answer = (status: number, type: string, body: string | Buffer) => {
      this.mediaCalls.push({ path: url, authorization, status });
      res.writeHead(status, { 'content-type': type }).end(body);
    };
    const error = (status: number, message: string) => answer(status, 'application/json', JSON.stringify({ error: { message, code: 100 } }));
    if (!media) return error(404, `no media ${id}`);
    if (media.token && authorization !== `Bearer ${media.token}`) return error(401, 'Invalid OAuth access token');
    const origin = this.baseUrl.replace(/\/v21\.0$/, '');
    if (first === 'v21.0') {
      if (media.failWith && !media.failBytes) return error(media.failWith, 'scripted failure');
      const description = {
        messaging_product: 'whatsapp',
        id,
        url: `${origin}/media/${id}`,
        mime_type: media.mimeType,
        file_size: media.bytes.length,
      };
      return answer(200, 'application/json', JSON.stringify(description));
    }
    if (first === 'media' || first === 'cdn') {
      if (media.failWith) return error(media.failWith, 'scripted failure');
      return answer(200, media.mimeType, media.bytes);
    }
    error(404, `unknown path ${url}`);
  }

  /** The URL of a Messenger/Instagram attachment `id` (register it in `media` without a token). */
  attachmentUrl(id: string): string {
    return `${this.baseUrl.replace(/\/v21\.0$/, '')}/cdn/${id}`;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Calls to `to` (WhatsApp `to`, or Messenger/Instagram `recipient.id`). */
  sentTo(to: string): SentCall[] {
    return this.sent.filter((c) => c.body.to === to || c.body.recipient?.id === to);
  }

  /** The text of a call. */
  static textOf(call: SentCall): string {
    return call.body.text?.body ?? call.body.message?.text;
  }

  /** Waits until `count` calls went to `to` (polling on each call's arrival), or fails after `timeoutMs`. */
  async waitFor(to: string, count = 1, timeoutMs = 15_000): Promise<SentCall[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.sentTo(to).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`expected ${count} message(s) sent to ${to}, got ${this.sentTo(to).length}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.sentTo(to);
  }
}

/** `sha256=<hex>`, as Meta signs a delivery with the app secret. */
export const sign = (secret: string, body: string) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** Posts a delivery to agentry's webhook, signed with `secret` (or the signature given). */
export async function deliver(origin: string, channel: string, payload: unknown, secret: string, signature?: string): Promise<Response> {
  const body = JSON.stringify(payload);
  return fetch(`${origin}/channels/v1/${channel}/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature ?? sign(secret, body) },
    body,
  });
}

/** A WhatsApp Cloud API delivery of one message (text, or another type's part) to `phoneNumberId`. */
export function whatsAppMessage(
  phoneNumberId: string,
  from: string,
  id: string,
  message: { text: string } | { type: string; part: Record<string, unknown> },
) {
  const content = 'text' in message ? { type: 'text', text: { body: message.text } } : { type: message.type, [message.type]: message.part };
  return whatsAppDelivery(phoneNumberId, {
    contacts: [{ profile: { name: 'Kerry' }, wa_id: from }],
    messages: [{ from, id, timestamp: String(Math.floor(Date.now() / 1000)), ...content }],
  });
}

/** The Cloud API's envelope of one change to the number `phoneNumberId`: its messages or statuses. */
function whatsAppDelivery(phoneNumberId: string, value: Record<string, unknown>) {
  return {
    object: 'whatsapp_business_account',
    entry: [
      {
        id: 'WABA_ID',
        changes: [
          {
            field: 'messages',
            value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550001111', phone_number_id: phoneNumberId }, ...value },
          },
        ],
      },
    ],
  };
}

/** A WhatsApp status delivery of the agent's message `id`. */
export function whatsAppStatus(phoneNumberId: string, recipient: string, id: string, status: string, errors?: unknown[]) {
  return whatsAppDelivery(phoneNumberId, {
    statuses: [{ id, status, timestamp: String(Math.floor(Date.now() / 1000)), recipient_id: recipient, ...(errors ? { errors } : {}) }],
  });
}

/** A Messenger (`page`) or Instagram (`instagram`) delivery of `items` (messaging events) to `recipientId`. */
export function messagingDelivery(object: 'page' | 'instagram', recipientId: string, items: Record<string, unknown>[]) {
  return {
    object,
    entry: [
      { id: recipientId, time: Date.now(), messaging: items.map((item) => ({ recipient: { id: recipientId }, timestamp: Date.now(), ...item })) },
    ],
  };
}

/** A person's text message on Messenger or Instagram. */
export const messagingText = (sender: string, mid: string, text: string) => ({ sender: { id: sender }, message: { mid, text } });
