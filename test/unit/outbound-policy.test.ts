import { expect } from 'chai';
import { AllowListError, parseAllowHosts, refusal, REFUSE_PRIVATE, type OutboundPolicy } from '../../lib/outbound/address-policy.js';
import { classify, parseCidr, parseIp } from '../../lib/outbound/ip-address.js';
import { ConfigError, loadConfig } from '../../lib/config.js';

const kindOf = (address: string) => classify(parseIp(address)!);
const at = (host: string, port = 80) => ({ host, port });

describe('outbound address policy', () => {
  it('classifies IPv4 addresses by their special-purpose block', () => {
    const cases: [string, string][] = [
      ['169.254.169.254', 'metadata'],
      ['100.100.100.200', 'metadata'],
      ['168.63.129.16', 'metadata'],
      ['169.254.10.1', 'link-local'],
      ['127.0.0.1', 'loopback'],
      ['127.255.0.9', 'loopback'],
      ['10.1.2.3', 'private'],
      ['172.16.0.1', 'private'],
      ['172.31.255.255', 'private'],
      ['172.32.0.1', 'public'],
      ['192.168.1.1', 'private'],
      ['100.64.0.1', 'shared'],
      ['100.127.255.255', 'shared'],
      ['100.128.0.1', 'public'],
      ['0.0.0.0', 'unspecified'],
      ['0.1.2.3', 'unspecified'],
      ['224.0.0.1', 'multicast'],
      ['255.255.255.255', 'reserved'],
      ['8.8.8.8', 'public'],
      ['93.184.216.34', 'public'],
    ];
    for (const [address, kind] of cases) expect(kindOf(address), address).to.equal(kind);
  });

  it('classifies IPv6 addresses, and the IPv6 forms that carry an IPv4 address as that address', () => {
    const cases: [string, string][] = [
      ['::1', 'loopback'],
      ['[::1]', 'loopback'],
      ['::', 'unspecified'],
      ['fe80::1', 'link-local'],
      ['fe80::1%eth0', 'link-local'],
      ['fd00:ec2::254', 'metadata'],
      ['fd12:3456::1', 'private'],
      ['fc00::1', 'private'],
      ['ff02::1', 'multicast'],
      ['2606:4700::1111', 'public'],
      // IPv4-mapped, as typed and as the URL parser writes it (::ffff:7f00:1)
      ['::ffff:127.0.0.1', 'loopback'],
      ['::ffff:7f00:1', 'loopback'],
      ['::FFFF:A9FE:A9FE', 'metadata'],
      ['::ffff:10.0.0.1', 'private'],
      ['::ffff:8.8.8.8', 'public'],
      // NAT64, IPv4-compatible, 6to4
      ['64:ff9b::a9fe:a9fe', 'metadata'],
      ['::127.0.0.1', 'loopback'],
      ['2002:c0a8:0101::1', 'private'],
    ];
    for (const [address, kind] of cases) expect(kindOf(address), address).to.equal(kind);
    expect(parseIp('::ffff:10.0.0.1')).to.deep.equal(parseIp('10.0.0.1'));
    expect(parseIp('example.com')).to.equal(null);
    expect(parseIp('1.2.3')).to.equal(null);
  });

  it('reads CIDR blocks, an address as a block of one, and refuses malformed ones', () => {
    expect(parseCidr('10.0.0.0/8')).to.include({ version: 4, prefix: 8 });
    expect(parseCidr('10.0.0.5')).to.include({ version: 4, prefix: 32 });
    expect(parseCidr('fd00::/8')).to.include({ version: 6, prefix: 8 });
    expect(parseCidr('::ffff:10.0.0.0/104')).to.deep.equal(parseCidr('10.0.0.0/8'));
    for (const bad of ['10.0.0.0/33', '10.0.0.0/x', '10.0.0.0/8/1', 'fd00::/129', 'host/8', '10.0.0.0/']) expect(parseCidr(bad), bad).to.equal(null);
  });

  it('parses OUTBOUND_ALLOW_HOSTS: blocks, addresses, host names, subdomain patterns, ports', () => {
    const entries = parseAllowHosts(' 10.1.2.0/24, Ollama.Internal:11434 ,[::1]:9000,fd12::/16,*.corp.internal,127.0.0.1:8080,,');
    expect(entries.map((e) => [e.kind, e.port])).to.deep.equal([
      ['cidr', undefined],
      ['host', 11434],
      ['cidr', 9000],
      ['cidr', undefined],
      ['host', undefined],
      ['cidr', 8080],
    ]);
    expect(entries[1]).to.include({ host: 'ollama.internal' });
    for (const bad of ['10.0.0.0/40', 'http://x.test', 'a b', 'host:99999', '1.2.3'])
      expect(() => parseAllowHosts(bad), bad).to.throw(AllowListError);
  });

  it('always refuses link-local and metadata addresses, even with OUTBOUND_ALLOW_PRIVATE or an allow-list entry', () => {
    const open: OutboundPolicy = { allowPrivate: true, allowHosts: parseAllowHosts('169.254.0.0/16,metadata.google.internal') };
    for (const address of ['169.254.169.254', '::ffff:169.254.169.254', 'fe80::1', 'fd00:ec2::254', '100.100.100.200']) {
      expect(refusal(open, at(address), address), address).to.match(/never calls link-local or cloud metadata addresses/);
    }
    expect(refusal(open, at('metadata.google.internal'), '169.254.169.254')).to.equal(
      'metadata.google.internal resolves to 169.254.169.254, a cloud metadata address; the outbound address policy never calls link-local or cloud metadata addresses',
    );
  });

  it('refuses private addresses by default, naming the variables that allow them', () => {
    expect(refusal(REFUSE_PRIVATE, at('8.8.8.8'), '8.8.8.8')).to.equal(null);
    for (const address of ['127.0.0.1', '::1', '10.0.0.1', '172.20.1.1', '192.168.0.10', 'fd12::1', '100.64.1.1', '0.0.0.0', '::ffff:7f00:1']) {
      const reason = refusal(REFUSE_PRIVATE, at(address), address);
      expect(reason, address).to.include('OUTBOUND_ALLOW_PRIVATE=true').and.include('OUTBOUND_ALLOW_HOSTS');
    }
    expect(refusal(REFUSE_PRIVATE, at('localhost'), '127.0.0.1')).to.match(/^localhost resolves to 127\.0\.0\.1, a loopback address; /);
    expect(refusal({ allowPrivate: true, allowHosts: [] }, at('db.internal'), '10.0.0.7')).to.equal(null);
  });

  it('lets the allow-list open a block, an address on one port, or a host name whatever it resolves to', () => {
    const policy: OutboundPolicy = { allowPrivate: false, allowHosts: parseAllowHosts('10.1.2.0/24,127.0.0.1:8080,files.internal,*.corp.internal') };
    const allowed = (host: string, port: number, address: string) => refusal(policy, at(host, port), address) === null;
    expect(allowed('10.1.2.9', 80, '10.1.2.9')).to.equal(true);
    expect(allowed('10.1.3.9', 80, '10.1.3.9')).to.equal(false);
    expect(allowed('::ffff:10.1.2.9', 80, '::ffff:10.1.2.9')).to.equal(true);
    expect(allowed('127.0.0.1', 8080, '127.0.0.1')).to.equal(true);
    expect(allowed('localhost', 8080, '127.0.0.1')).to.equal(true);
    expect(allowed('127.0.0.1', 8081, '127.0.0.1')).to.equal(false);
    expect(allowed('files.internal', 443, '192.168.5.5')).to.equal(true);
    expect(allowed('other.internal', 443, '192.168.5.5')).to.equal(false);
    expect(allowed('a.corp.internal', 443, '10.9.9.9')).to.equal(true);
    expect(allowed('corp.internal', 443, '10.9.9.9')).to.equal(false);
  });

  it('is read by loadConfig from OUTBOUND_ALLOW_PRIVATE and OUTBOUND_ALLOW_HOSTS (default: no private address)', () => {
    expect(loadConfig({}).outbound).to.deep.equal(REFUSE_PRIVATE);
    const config = loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'TRUE', OUTBOUND_ALLOW_HOSTS: '10.0.0.0/8,ollama.internal' });
    expect(config.outbound.allowPrivate).to.equal(true);
    expect(config.outbound.allowHosts.map((e) => e.text)).to.deep.equal(['10.0.0.0/8', 'ollama.internal']);
    expect(() => loadConfig({ OUTBOUND_ALLOW_PRIVATE: 'yes' })).to.throw(ConfigError, /OUTBOUND_ALLOW_PRIVATE must be true or false/);
    expect(() => loadConfig({ OUTBOUND_ALLOW_HOSTS: '10.0.0.0/99' })).to.throw(ConfigError, /OUTBOUND_ALLOW_HOSTS: "10.0.0.0\/99"/);
  });
});
