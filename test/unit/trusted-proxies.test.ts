import { expect } from 'chai';
import { parseTrustProxy, requestOrigin } from '../../lib/http/trusted-proxies.js';
import { ConfigError, loadConfig } from '../../lib/config.js';

const socket = { address: '::ffff:10.0.0.5', protocol: 'http' };
const originVia = (trust: string | undefined, headers: Parameters<typeof requestOrigin>[3]) =>
  requestOrigin(parseTrustProxy(trust), socket, 'api.internal:3000', headers);

describe('trusted proxies (TRUST_PROXY)', () => {
  it('off by default: the connection is the client, forwarded headers are ignored', () => {
    for (const raw of [undefined, '', 'false', '0']) {
      expect(originVia(raw, { forwardedFor: '1.2.3.4', forwardedProto: 'https', forwardedHost: 'evil.example' })).to.deep.equal({
        address: '10.0.0.5',
        protocol: 'http',
        host: 'api.internal:3000',
      });
    }
  });

  it('a hop count trusts that many proxies from the connection inwards, never past the first entry', () => {
    const headers = { forwardedFor: 'forged, 203.0.113.1, 10.0.0.4', forwardedProto: 'http, https', forwardedHost: 'api.example.com' };
    expect(originVia('1', headers)).to.deep.equal({ address: '10.0.0.4', protocol: 'https', host: 'api.example.com' });
    expect(originVia('2', headers).address).to.equal('203.0.113.1');
    expect(originVia('3', headers).address).to.equal('forged');
    expect(originVia('9', headers).address).to.equal('forged');
    expect(originVia('1', {}).address, 'no header: the connection').to.equal('10.0.0.5');
  });

  it('addresses and named ranges trust the proxies they match, IPv6 included', () => {
    expect(originVia('10.0.0.0/8', { forwardedFor: 'forged, 198.51.100.2, 10.1.1.1' }).address).to.equal('198.51.100.2');
    expect(originVia('uniquelocal', { forwardedFor: '2001:db8::1, 10.1.1.1' }).address).to.equal('2001:db8::1');
    expect(originVia('192.0.2.1', { forwardedFor: '198.51.100.2' }).address, 'the connection itself is not trusted').to.equal('10.0.0.5');
  });

  it('refuses values it cannot read, naming the variable', () => {
    for (const raw of ['true', 'proxy.example', '10.0.0.0/33', '99']) {
      expect(() => loadConfig({ TRUST_PROXY: raw }), raw).to.throw(ConfigError, /TRUST_PROXY/);
    }
    expect(loadConfig({}).keepAliveTimeoutMs).to.equal(65_000);
    expect(() => loadConfig({ HTTP_KEEP_ALIVE_TIMEOUT: '0' })).to.throw(ConfigError, /HTTP_KEEP_ALIVE_TIMEOUT/);
  });
});
