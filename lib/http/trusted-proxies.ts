/**
 * Who a request came from when proxies stand in front of the API (`TRUST_PROXY`). Off by default: the socket's
 * address is the client, and `X-Forwarded-*` headers, which any caller can send, are ignored. With a hop count or a
 * list of proxy addresses, the client is the right-most `X-Forwarded-For` entry not added by a trusted proxy: each
 * proxy appends the address it was called from, so entries left of the last trusted one may be forged. Pure.
 */
import { classify, inCidr, parseCidr, parseIp, type Cidr } from '../outbound/ip-address.js';

/** `off`; the nearest `hops` proxies; or any proxy whose address is in `blocks` (or of a named kind). */
export type TrustProxy = { kind: 'off' } | { kind: 'hops'; hops: number } | { kind: 'addresses'; blocks: Cidr[]; kinds: string[] };

/** Names accepted beside CIDR blocks, as Express's `trust proxy` accepts them. */
const NAMED: Record<string, string> = { loopback: 'loopback', linklocal: 'link-local', uniquelocal: 'private' };

export class TrustProxyError extends Error {}

/** `TRUST_PROXY`: unset, `false` or `0` → off; `N` → N hops; `10.0.0.0/8,loopback` → those addresses. */
export function parseTrustProxy(raw: string | undefined): TrustProxy {
  const text = raw?.trim().toLowerCase() ?? '';
  if (!text || text === 'false' || text === '0') return { kind: 'off' };
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops > 32) throw new TrustProxyError(`a hop count is at most 32, got ${hops}`);
    return { kind: 'hops', hops };
  }
  if (text === 'true') throw new TrustProxyError('"true" would trust every address: give the hop count or the proxies\' addresses');
  const blocks: Cidr[] = [];
  const kinds: string[] = [];
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (NAMED[item]) kinds.push(NAMED[item]!);
    else {
      const block = parseCidr(item);
      if (!block) throw new TrustProxyError(`"${item}" is not an address, a CIDR block, loopback, linklocal or uniquelocal`);
      blocks.push(block);
    }
  }
  return { kind: 'addresses', blocks, kinds };
}

/** What the API knows of a request's origin once the trusted proxies are peeled off. */
export interface RequestOrigin {
  /** The client's address. */
  address: string;
  /** `http` or `https`, as the client called. */
  protocol: string;
  /** The host (and port) the client called. */
  host: string;
}

export interface ForwardedHeaders {
  forwardedFor?: string;
  forwardedProto?: string;
  forwardedHost?: string;
}

const list = (header: string | undefined) =>
  (header ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** Plain address text: `::ffff:10.0.0.1` is read as `10.0.0.1`, brackets and zones are dropped. */
function plain(address: string): string {
  return address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
}

function trusted(trust: TrustProxy, address: string, hop: number): boolean {
  if (trust.kind === 'off') return false;
  if (trust.kind === 'hops') return hop < trust.hops;
  const ip = parseIp(address);
  return !!ip && (trust.blocks.some((block) => inCidr(ip, block)) || trust.kinds.includes(classify(ip)));
}

/**
 * The request's origin: `socket` is the peer's address and scheme (what the connection shows), `host` the Host header.
 * The forwarded headers are read only as far as trusted proxies vouch for them.
 */
export function requestOrigin(
  trust: TrustProxy,
  socket: { address: string; protocol: string },
  host: string,
  headers: ForwardedHeaders,
): RequestOrigin {
  const chain = [...list(headers.forwardedFor), plain(socket.address)];
  // Walk from the connection inwards while the hop is a trusted proxy: what it forwarded is believed.
  let proxies = 0;
  while (proxies < chain.length && trusted(trust, chain[chain.length - 1 - proxies]!, proxies)) proxies += 1;
  if (proxies === 0) return { address: chain[chain.length - 1]!, protocol: socket.protocol, host };
  const client = Math.max(0, chain.length - 1 - proxies);
  // The outermost trusted proxy's entry: proxies append, one each; one that overwrites leaves a single entry.
  const pick = (values: string[]) => values[Math.max(0, values.length - proxies)];
  const protocol = pick(list(headers.forwardedProto))?.toLowerCase();
  return {
    address: plain(chain[client]!),
    protocol: protocol === 'https' || protocol === 'http' ? protocol : socket.protocol,
    host: pick(list(headers.forwardedHost)) ?? host,
  };
}
