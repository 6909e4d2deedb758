/**
 * IP addresses as numbers, CIDR blocks, and what kind of network an address belongs to (RFC 6890's special-purpose
 * registries, plus the cloud metadata endpoints). Pure: the outbound policy (address-policy.ts) decides with it.
 */
import { isIP } from 'node:net';

/** An address as a number; IPv4-mapped IPv6 (`::ffff:a.b.c.d`) is read as the IPv4 address it stands for. */
export interface IpAddress {
  version: 4 | 6;
  value: bigint;
}

export interface Cidr extends IpAddress {
  prefix: number;
}

export type AddressKind = 'public' | 'metadata' | 'link-local' | 'loopback' | 'private' | 'shared' | 'unspecified' | 'multicast' | 'reserved';

const bits = (version: 4 | 6) => (version === 4 ? 32 : 128);

function ipv4Value(text: string): bigint {
  return text.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Value(text: string): bigint {
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = ipv4Value(dotted[1]!);
    text = `${text.slice(0, dotted.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, group) => (n << 16n) | BigInt(parseInt(group, 16)), 0n);
}

const MAPPED_PREFIX = 0xffffn << 32n;

/** `10.0.0.1`, `::1`, `[fe80::1%eth0]` → the address; null when the text is not an IP address. */
export function parseIp(text: string): IpAddress | null {
  const address = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const version = isIP(address);
  if (version === 4) return { version: 4, value: ipv4Value(address) };
  if (version !== 6) return null;
  const value = ipv6Value(address.toLowerCase());
  return value >> 32n === 0xffffn ? { version: 4, value: value - MAPPED_PREFIX } : { version: 6, value };
}

/** `10.0.0.0/8`, `fc00::/7`, or one address (a /32 or /128); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const [address, length, extra] = text.split('/');
  const ip = parseIp(address ?? '');
  if (!ip || extra !== undefined) return null;
  // A mapped IPv6 block (::ffff:10.0.0.0/104) is read as the IPv4 block it stands for.
  const mappedShift = ip.version === 4 && address!.includes(':') ? 96 : 0;
  const prefix = length === undefined ? bits(ip.version) : Number(length) - mappedShift;
  if (length !== undefined && !/^\d+$/.test(length)) return null;
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits(ip.version)) return null;
  return { ...ip, prefix };
}

export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  if (ip.version !== cidr.version) return false;
  const shift = BigInt(bits(ip.version) - cidr.prefix);
  return ip.value >> shift === cidr.value >> shift;
}

const block = (text: string, kind: AddressKind) => ({ cidr: parseCidr(text)!, kind });

/** Most specific first: the metadata addresses lie inside link-local, private and shared blocks. */
const SPECIAL_BLOCKS = [
  block('169.254.169.254', 'metadata'), // AWS, GCP, Azure, OpenStack, DigitalOcean, Oracle
  block('100.100.100.200', 'metadata'), // Alibaba Cloud
  block('168.63.129.16', 'metadata'), // Azure's host (WireServer)
  block('192.0.0.192', 'metadata'), // Oracle Cloud (classic)
  block('fd00:ec2::254', 'metadata'), // AWS over IPv6
  block('169.254.0.0/16', 'link-local'),
  block('fe80::/10', 'link-local'),
  block('0.0.0.0/8', 'unspecified'),
  block('::/128', 'unspecified'),
  block('127.0.0.0/8', 'loopback'),
  block('::1/128', 'loopback'),
  block('10.0.0.0/8', 'private'),
  block('172.16.0.0/12', 'private'),
  block('192.168.0.0/16', 'private'),
  block('fc00::/7', 'private'),
  block('fec0::/10', 'private'), // site-local, deprecated but still routed by some stacks
  block('100.64.0.0/10', 'shared'),
  block('224.0.0.0/4', 'multicast'),
  block('ff00::/8', 'multicast'),
  block('192.0.0.0/24', 'reserved'),
  block('198.18.0.0/15', 'reserved'),
  block('240.0.0.0/4', 'reserved'), // and the broadcast address
  block('100::/64', 'reserved'),
];

/** IPv6 forms that carry an IPv4 address: NAT64 (64:ff9b::/96), IPv4-compatible (::/96) and 6to4 (2002::/16). */
function embeddedIpv4(ip: IpAddress): IpAddress | null {
  if (ip.version !== 6) return null;
  if (inCidr(ip, parseCidr('64:ff9b::/96')!) || (ip.value >> 32n === 0n && ip.value > 1n)) return { version: 4, value: ip.value & 0xffffffffn };
  if (inCidr(ip, parseCidr('2002::/16')!)) return { version: 4, value: (ip.value >> 80n) & 0xffffffffn };
  return null;
}

/** What kind of network `ip` is on; `public` when no special-purpose block holds it. */
export function classify(ip: IpAddress): AddressKind {
  const embedded = embeddedIpv4(ip);
  if (embedded) return classify(embedded);
  return SPECIAL_BLOCKS.find(({ cidr }) => inCidr(ip, cidr))?.kind ?? 'public';
}
