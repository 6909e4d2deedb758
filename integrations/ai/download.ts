/** Downloading a file a node names by URL (audio, documents), refusing more than a size limit before reading it all. */
import type { OutboundFetch } from '../outbound/outbound-fetch.js';
import { NodeError } from '../../lib/errors.js';

/** Largest audio agentry transcribes (TRANSCRIPTION's `audioUrl`, a person's voice message): the usual limit of transcription endpoints. */
export const MAX_AUDIO_BYTES = 25 * 1024 * 1024;

export interface Downloaded {
  bytes: Uint8Array;
  contentType: string;
  fileName: string;
}

/**
 * GETs `url` into memory through `outbound` (the outbound address policy), at most `maxBytes`: a larger
 * `Content-Length`, or a body that grows past the limit, fails the node. 4xx answers are permanent; network errors
 * and 5xx are retried by Temporal.
 */
export async function downloadFile(
  outbound: OutboundFetch,
  url: string,
  maxBytes: number,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Downloaded> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new NodeError(`"${url.slice(0, 200)}" is not a URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new NodeError(`Only http and https URLs can be downloaded, not ${parsed.protocol}`);
  const response = await outbound(parsed, { signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]) });
  if (response.status >= 400 && response.status < 500) throw new NodeError(`Downloading ${parsed.href} answered ${response.status}`);
  if (!response.ok) throw new Error(`Downloading ${parsed.href} answered ${response.status}`);
  const tooLarge = () =>
    new NodeError(`The file at ${parsed.href} is larger than ${maxBytes / 1024 / 1024} MB, the largest this node accepts`, 'FileTooLarge');
  if (Number(response.headers.get('content-length') ?? 0) > maxBytes) {
    await response.body?.cancel();
    throw tooLarge();
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    chunks.push(chunk);
  }
  const fileName = decodeURIComponent(parsed.pathname.split('/').pop() || 'file');
  return { bytes: Buffer.concat(chunks), contentType: response.headers.get('content-type')?.split(';')[0] || 'application/octet-stream', fileName };
}
