/**
 * The media of a person's message on Meta's networks, downloaded for transcription: WhatsApp's Cloud API names a
 * media id (`GET {base}/{media-id}` with the number's Bearer token answers `{ url, mime_type, file_size }`, and
 * `GET url` with the same token answers the bytes); Messenger and Instagram give the attachment's URL itself.
 *
 * These are the network's endpoints (the Cloud API base the operator configured, the URLs of a delivery signed by
 * the connected app), not a user's URLs: they are reached outside the outbound address policy. A 4xx, a file over
 * `maxBytes` or an answer without a URL is permanent (`MediaUnavailable`); network errors and 5xx are worth retrying.
 */
import { downloadFile, type Downloaded } from '../ai/download.js';
import type { OutboundFetch } from '../outbound/outbound-fetch.js';
import { NodeError } from '../../lib/errors.js';

/** Where a message's media is: a WhatsApp media id behind the Cloud API, or a URL. */
export type MediaSource = { kind: 'cloud-api'; baseUrl: string; token: string; mediaId: string } | { kind: 'url'; url: string };

/** The media cannot be had, and asking again will not change it. */
export class MediaUnavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MediaUnavailable';
  }
}

export interface MediaOptions {
  maxBytes: number;
  signal: AbortSignal;
  timeoutMs: number;
}

/** Plain `fetch`, with the Bearer token when there is one: the network's endpoints, outside the address policy. */
const networkFetch =
  (token?: string): OutboundFetch =>
  (url, init) =>
    fetch(url, {
      ...init,
      headers: { ...(init?.headers as Record<string, string> | undefined), ...(token ? { authorization: `Bearer ${token}` } : {}) },
    });

/** The Cloud API's description of a media id: its download URL, type and size. */
async function cloudApiMedia(source: Extract<MediaSource, { kind: 'cloud-api' }>, options: MediaOptions) {
  const response = await networkFetch(source.token)(`${source.baseUrl}/${encodeURIComponent(source.mediaId)}`, {
    signal: AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]),
  });
  const raw = await response.text().catch(() => '');
  if (response.status >= 400 && response.status < 500 && response.status !== 429)
    throw new MediaUnavailable(`The Cloud API answered ${response.status} for media ${source.mediaId}: ${raw.slice(0, 300)}`);
  if (!response.ok) throw new Error(`The Cloud API answered ${response.status} for media ${source.mediaId}`);
  let body: { url?: unknown; mime_type?: unknown; file_size?: unknown } = {};
  try {
    body = JSON.parse(raw);
  } catch {
    throw new Error(`The Cloud API's answer for media ${source.mediaId} is not JSON`);
  }
  if (typeof body.url !== 'string' || !body.url) throw new MediaUnavailable(`The Cloud API named no URL for media ${source.mediaId}`);
  const size = Number(body.file_size);
  if (Number.isFinite(size) && size > options.maxBytes)
    throw new MediaUnavailable(`Media ${source.mediaId} is ${size} bytes, more than the ${options.maxBytes / 1024 / 1024} MB transcription takes`);
  return { url: body.url, mimeType: typeof body.mime_type === 'string' ? body.mime_type : undefined };
}

/** The media's bytes (at most `maxBytes`), its content type and a file name the transcription endpoint accepts. */
export async function downloadMedia(source: MediaSource, options: MediaOptions): Promise<Downloaded> {
  const described = source.kind === 'cloud-api' ? await cloudApiMedia(source, options) : { url: source.url, mimeType: undefined };
  let file: Downloaded;
  try {
    file = await downloadFile(
      networkFetch(source.kind === 'cloud-api' ? source.token : undefined),
      described.url,
      options.maxBytes,
      options.signal,
      options.timeoutMs,
    );
  } catch (error) {
    // downloadFile says permanent with a NodeError (a 4xx, too large, not an http(s) URL).
    if (error instanceof NodeError) throw new MediaUnavailable(error.message);
    throw error;
  }
  const contentType = described.mimeType?.split(';')[0]?.trim() || file.contentType;
  return { ...file, contentType, fileName: withExtension(file.fileName, contentType) };
}

/** Transcription endpoints tell the format by the file name's extension: give one that fits the content type. */
const EXTENSIONS: Record<string, string> = {
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'm4a',
  'audio/m4a': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/aac': 'm4a',
  'audio/amr': 'amr',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/webm': 'webm',
  'video/mp4': 'mp4',
};

export function withExtension(fileName: string, contentType: string): string {
  if (/\.[a-z0-9]{2,4}$/i.test(fileName)) return fileName;
  const extension = EXTENSIONS[contentType.toLowerCase()];
  return extension ? `${fileName || 'voice'}.${extension}` : fileName;
}
