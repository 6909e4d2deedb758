/**
 * The one HTTP client for URLs an account's user saved (API nodes, custom tools, TRANSCRIPTION and FILE_ANALYSIS
 * downloads). It answers a WHATWG `Response` like `fetch`, but:
 *
 * - the host name is resolved by the client itself, every address is checked against the outbound address policy,
 *   and the socket connects to those checked addresses (a custom `lookup`), so a second DNS answer (rebinding)
 *   cannot swap in another address between the check and the connection;
 * - redirects are followed by hand, at most `MAX_REDIRECTS`, each hop checked like the first;
 * - a refused call throws `OutboundError`, a permanent failure (the node fails at once, naming the policy).
 *
 * Endpoints the operator configures (AI_BASE_URL, MESSAGING_API_URL and numbers' Cloud API URLs set with the admin
 * CLI, TRIGGER_PROVIDER_URL) are the operator's to choose and do not go through it.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusal, type OutboundPolicy, type OutboundTarget } from '../../lib/outbound/address-policy.js';

/** A permanent failure of an outbound call: `type` names it for Temporal (`OutboundAddressRefused`, …). */
export class OutboundError extends Error {
  constructor(
    message: string,
    readonly type: 'OutboundAddressRefused' | 'TooManyRedirects' | 'UnsupportedProtocol',
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundInit {
  method?: string;
  headers?: ConstructorParameters<typeof Headers>[0];
  body?: string | Uint8Array | null;
  signal?: AbortSignal;
}

/** `fetch` under the outbound address policy. */
export type OutboundFetch = (url: string | URL, init?: OutboundInit) => Promise<Response>;

/** Resolves a host name to all its addresses (the system resolver unless a test injects one). */
export type Resolve = (host: string) => Promise<LookupAddress[]>;

export const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

const systemResolve: Resolve = (host) =>
  new Promise((resolve, reject) => dnsLookup(host, { all: true }, (error, addresses) => (error ? reject(error) : resolve(addresses))));

function targetOf(url: URL): OutboundTarget {
  return {
    host: url.hostname
      .replace(/^\[(.*)\]$/, '$1')
      .replace(/\.$/, '')
      .toLowerCase(),
    port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80),
  };
}

/**
 * A network failure as a transient error of its own (Temporal retries it), like fetch's "fetch failed": Node's
 * `code` (ECONNREFUSED, ECONNRESET) stays in `cause`, so the worker never reads it as a PostgreSQL outage.
 */
function networkFailure(url: URL, error: Error): Error {
  if (error instanceof OutboundError || error.name === 'AbortError') return error;
  return new Error(`The call to ${url.origin} failed: ${error.message}`, { cause: error });
}

/** The answer's body as a web stream, read as the caller reads (backpressure), failing with `networkFailure`. */
function bodyOf(url: URL, res: IncomingMessage): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      res.on('data', (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk));
        if ((controller.desiredSize ?? 0) <= 0) res.pause();
      });
      res.once('end', () => controller.close());
      res.once('error', (error) => controller.error(networkFailure(url, error)));
    },
    pull: () => void res.resume(),
    cancel: () => void res.destroy(),
  });
}

function toResponse(url: URL, res: IncomingMessage, method: string): Response {
  const headers = new Headers();
  for (let i = 0; i < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  const empty = method === 'HEAD' || NULL_BODY.has(res.statusCode!);
  if (empty) res.resume();
  return new Response(empty ? null : bodyOf(url, res), { status: res.statusCode, statusText: res.statusMessage, headers });
}

/** A client whose every call, redirects included, connects only to addresses `policy` allows. */
export function createOutboundFetch(policy: OutboundPolicy, resolve: Resolve = systemResolve): OutboundFetch {
  // Agents of its own: a pooled socket is one this client checked, never one another client opened.
  const agents = { 'http:': new HttpAgent({ keepAlive: true }), 'https:': new HttpsAgent({ keepAlive: true }) };

  const check = (url: URL, target: OutboundTarget, address: string) => {
    const reason = refusal(policy, target, address);
    if (reason) throw new OutboundError(`The call to ${url.origin} was refused: ${reason}`, 'OutboundAddressRefused');
  };

  const lookupFor =
    (url: URL, target: OutboundTarget): LookupFunction =>
    (host, options, callback) => {
      resolve(host)
        .then((found) => {
          const addresses = found.filter((a) => !options.family || a.family === options.family);
          if (!addresses.length) throw Object.assign(new Error(`${host} has no address`), { code: 'ENOTFOUND' });
          // Every address is checked, not only the first: the socket may try each of them.
          for (const { address } of addresses) check(url, target, address);
          if (options.all) callback(null, addresses);
          else callback(null, addresses[0]!.address, addresses[0]!.family);
        })
        .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
    };

  const send = (url: URL, method: string, headers: Headers, body: OutboundInit['body'], signal?: AbortSignal) => {
    const target = targetOf(url);
    // A literal address is connected to without a lookup: it is checked here.
    if (isIP(target.host)) check(url, target, target.host);
    const protocol = url.protocol as 'http:' | 'https:';
    const options: RequestOptions = {
      method,
      headers: Object.fromEntries(headers),
      agent: agents[protocol],
      lookup: lookupFor(url, target),
      signal,
    };
    return new Promise<Response>((resolve, reject) => {
      const request = (protocol === 'https:' ? httpsRequest : httpRequest)(url, options, (res) => {
        try {
          resolve(toResponse(url, res, method));
        } catch (error) {
          res.destroy();
          reject(error as Error);
        }
      });
      request.once('error', (error) => reject(networkFailure(url, error)));
      request.end(body ?? undefined);
    });
  };

  return async (input, init = {}) => {
    let url = new URL(input);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = init.body ?? undefined;
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', '*/*');
    if (!headers.has('user-agent')) headers.set('user-agent', 'agentry');
    for (let redirects = 0; ; redirects++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new OutboundError(`Only http and https URLs can be called, not ${url.protocol} (${url.href.slice(0, 200)})`, 'UnsupportedProtocol');
      if (body !== undefined) headers.set('content-length', String(Buffer.byteLength(body)));
      else headers.delete('content-length');
      const response = await send(url, method, headers, body, init.signal);
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || location === null) return response;
      await response.body?.cancel();
      if (redirects === MAX_REDIRECTS)
        throw new OutboundError(`${url.origin} redirected more than ${MAX_REDIRECTS} times in a row`, 'TooManyRedirects');
      const next = new URL(location, url);
      // As fetch does: 303 (and 301/302 after a POST) continue with a GET without the body.
      if ((response.status === 303 && method !== 'HEAD') || (response.status <= 302 && method === 'POST')) {
        method = 'GET';
        body = undefined;
        headers.delete('content-type');
      }
      // Credentials are for the origin they were written for.
      if (next.origin !== url.origin) for (const name of ['authorization', 'cookie', 'proxy-authorization']) headers.delete(name);
      url = next;
    }
  };
}
