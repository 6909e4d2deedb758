import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../lib/config.js';
import { SecretBox, secretHint } from '../../lib/secret-box.js';
import { deliveryRefusal, signDelivery, subscriptionSecret } from '../../lib/triggers/delivery-signature.js';

describe('provider secrets: sealed settings, trigger signing key, delivery signatures', () => {
  it('seals with AES-256-GCM: a fresh IV each time, opened only with the same key, damage detected', () => {
    const box = SecretBox.fromKey('a1'.repeat(32))!;
    const sealed = box.seal('token-123456');
    expect(sealed).to.match(/^v1\./).and.not.include('token');
    expect(box.seal('token-123456')).to.not.equal(sealed);
    expect(box.open(sealed)).to.equal('token-123456');
    expect(SecretBox.fromKey(Buffer.alloc(32, 7).toString('base64'))!.open(sealed)).to.equal(null);
    const [v, iv, tag, data] = sealed.split('.');
    expect(box.open([v, iv, tag, `${data!.slice(0, -2)}AA`].join('.'))).to.equal(null);
    expect(SecretBox.fromKey('too-short')).to.equal(null);
    expect(secretHint('token-123456')).to.equal('…3456');
    expect(secretHint('short')).to.equal('…');
  });

  it('reads TRIGGER_SIGNING_KEY (required with a trigger provider) and SETTINGS_ENCRYPTION_KEY', () => {
    const provider = { TRIGGER_PROVIDER_URL: 'http://127.0.0.1:9/v1', TRIGGER_PROVIDER_API_KEY: 'k' };
    expect(() => loadConfig(provider)).to.throw(ConfigError, /TRIGGER_SIGNING_KEY must be set/);
    expect(loadConfig({ ...provider, TRIGGER_SIGNING_KEY: 'x'.repeat(32) }).triggerProvider?.signingKey).to.equal('x'.repeat(32));
    expect(loadConfig({}).settingsKey).to.equal(null);
    expect(() => loadConfig({ SETTINGS_ENCRYPTION_KEY: 'abc' })).to.throw(ConfigError, /SETTINGS_ENCRYPTION_KEY must be 32 bytes/);
    expect(loadConfig({ SETTINGS_ENCRYPTION_KEY: 'a1'.repeat(32) }).settingsKey).to.equal('a1'.repeat(32));
  });

  it('accepts a delivery signed over timestamp and raw body within 5 minutes either way, and nothing else', () => {
    const secret = subscriptionSecret('k'.repeat(32), 'tsub_1');
    expect(secret).to.not.equal(subscriptionSecret('k'.repeat(32), 'tsub_2'));
    const body = Buffer.from('{"a":1}');
    const at = 1_700_000_000;
    const headers = { timestamp: String(at), signature: signDelivery(secret, at, body) };
    expect(deliveryRefusal(secret, headers, body, at + 300)).to.equal(null);
    expect(deliveryRefusal(secret, headers, body, at - 300)).to.equal(null);
    expect(deliveryRefusal(secret, headers, body, at + 301)).to.match(/replayed/);
    expect(deliveryRefusal(secret, headers, Buffer.from('{"a": 1}'), at)).to.match(/does not match/);
    expect(deliveryRefusal(secret, { ...headers, signature: headers.signature.toUpperCase() }, body, at)).to.match(/does not match/);
  });
});
