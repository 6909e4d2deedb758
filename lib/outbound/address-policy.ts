/**
 * The outbound address policy: which addresses agentry may connect to when it calls a URL an account's user saved
 * (API nodes, custom tools, file downloads). It is checked on the addresses a host name resolves to, so a public
 * name pointing at a private address is refused as the address itself would be.
 *
 * - Link-local and cloud metadata addresses are always refused: nothing an automation should reach lives there,
 *   and the metadata service hands out the machine's credentials.
 * - Loopback, private, shared (CGNAT), unspecified, multicast and reserved addresses are refused unless the
 *   operator allows them: all of them with OUTBOUND_ALLOW_PRIVATE=true, or some with OUTBOUND_ALLOW_HOSTS.
 */
import { classify, inCidr, parseCidr, parseIp, type AddressKind, type Cidr } from './ip-address.js';

/** One OUTBOUND_ALLOW_HOSTS entry: a CIDR block or address, or a host name (`*.` for its subdomains); `:port` narrows it. */
export type AllowEntry = ({ kind: 'cidr'; cidr: Cidr } | { kind: 'host'; host: string }) & { port?: number; text: string };

export interface OutboundPolicy {
  /** OUTBOUND_ALLOW_PRIVATE: every address but link-local and metadata ones may be called. */
  allowPrivate: boolean;
  /** OUTBOUND_ALLOW_HOSTS: blocks and hosts that may be called although private. */
  allowHosts: readonly AllowEntry[];
}

/** The policy of a cluster: no private address at all. */
export const REFUSE_PRIVATE: OutboundPolicy = { allowPrivate: false, allowHosts: [] };

/** Where a call goes: the URL's host name (lower case, brackets and final dot removed) and port. */
export interface OutboundTarget {
  host: string;
  port: number;
}

/** Thrown for an OUTBOUND_ALLOW_HOSTS entry that cannot be read. */
export class AllowListError extends Error {}

const HOST_NAME = /^(\*\.)?([a-z0-9_]([a-z0-9_-]*[a-z0-9_])?\.)*[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?$/;

function allowEntry(raw: string): AllowEntry {
  const text = raw.trim().toLowerCase();
  // `[::1]:8080`, `10.0.0.5:8080`, `files.internal:443`; a bare IPv6 address or block has no port.
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const withPort = bracketed ? null : /^([^:]+):(\d+)$/.exec(text);
  const [target, portText] = bracketed ? [bracketed[1]!, bracketed[2]] : withPort ? [withPort[1]!, withPort[2]] : [text, undefined];
  const port = portText === undefined ? undefined : Number(portText);
  if (port !== undefined && (port < 1 || port > 65535)) throw new AllowListError(`"${raw.trim()}" has a port outside 1-65535`);
  const cidr = parseCidr(target);
  if (cidr) return { kind: 'cidr', cidr, port, text };
  if (target.includes('/') || target.includes(':') || !HOST_NAME.test(target) || /^[\d.]+$/.test(target))
    throw new AllowListError(`"${raw.trim()}" is neither an address, a CIDR block (10.0.0.0/8) nor a host name`);
  return { kind: 'host', host: target, port, text };
}

/** `10.0.0.0/8, ollama.internal, [::1]:8080` → the entries; throws `AllowListError` naming a malformed one. */
export function parseAllowHosts(text: string): AllowEntry[] {
  return text
    .split(',')
    .filter((item) => item.trim())
    .map(allowEntry);
}

const hostMatches = (pattern: string, host: string) =>
  pattern.startsWith('*.') ? host.endsWith(pattern.slice(1)) && host.length > pattern.length - 1 : host === pattern;

function allowListed(policy: OutboundPolicy, target: OutboundTarget, address: string): boolean {
  const ip = parseIp(address);
  return policy.allowHosts.some(
    (entry) =>
      (entry.port === undefined || entry.port === target.port) &&
      (entry.kind === 'host' ? hostMatches(entry.host, target.host) : !!ip && inCidr(ip, entry.cidr)),
  );
}

const KIND_NAMES: Record<Exclude<AddressKind, 'public'>, string> = {
  metadata: 'a cloud metadata address',
  'link-local': 'a link-local address',
  loopback: 'a loopback address',
  private: 'a private network address',
  shared: 'a carrier-grade NAT (shared) address',
  unspecified: 'an unspecified address',
  multicast: 'a multicast address',
  reserved: 'a reserved address',
};

/**
 * Why `address` (one the target's host is or resolves to) may not be called, as the end of a sentence naming the
 * policy and what the operator may change; null when it may be called.
 */
export function refusal(policy: OutboundPolicy, target: OutboundTarget, address: string): string | null {
  const ip = parseIp(address);
  if (!ip) return `${address} is not an IP address`;
  const kind = classify(ip);
  if (kind === 'public') return null;
  const what = `${target.host === address ? address : `${target.host} resolves to ${address}`}, ${KIND_NAMES[kind]}`;
  if (kind === 'metadata' || kind === 'link-local') return `${what}; the outbound address policy never calls link-local or cloud metadata addresses`;
  if (policy.allowPrivate || allowListed(policy, target, address)) return null;
  return (
    `${what}; the outbound address policy refuses private addresses unless the operator allows them: ` +
    'set OUTBOUND_ALLOW_PRIVATE=true, or add the host or its address to OUTBOUND_ALLOW_HOSTS, on the worker'
  );
}
