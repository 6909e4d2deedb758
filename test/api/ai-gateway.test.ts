import { expect } from 'chai';
import { AiProviderUnavailableError } from '../../integrations/ai/ai-provider.js';
import { OpenAiCompatibleProvider, retryAfterMs } from '../../integrations/ai/openai-compatible-provider.js';
import { ConfigError, loadConfig } from '../../lib/config.js';
import { harness, listen } from '../setup/harness.js';
import { call, newAccount } from '../setup/http.js';
import { executeNodeAttempt } from '../setup/node-executions.js';
import { FakeAiServer } from '../setup/fake-ai-server.js';
import { NodeError } from '../../lib/errors.js';

describe('the AI gateway: configuration, health, phrase suggestions, provider timeouts', function () {
  this.timeout(30_000);

  it('reads AI_BASE_URL and AI_API_KEY, the key required with the URL', () => {
    expect(loadConfig({}).ai).to.equal(null);
    expect(loadConfig({ AI_BASE_URL: 'http://127.0.0.1:11434/v1/', AI_API_KEY: 'ollama' }).ai).to.deep.equal({
      baseUrl: 'http://127.0.0.1:11434/v1',
      apiKey: 'ollama',
    });
    expect(() => loadConfig({ AI_BASE_URL: 'http://127.0.0.1:11434/v1' })).to.throw(ConfigError, /AI_API_KEY must be set/);
    expect(() => loadConfig({ AI_BASE_URL: 'ftp://x', AI_API_KEY: 'k' })).to.throw(ConfigError, /AI_BASE_URL must use/);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(retryAfterMs('2')).to.equal(2000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 7_000)).to.equal(3000);
    expect(retryAfterMs(null)).to.equal(null);
    expect(retryAfterMs('soon')).to.equal(null);
  });

  it('fails AI nodes with one message naming the variables when no provider is configured', async () => {
    const a = await newAccount();
    const attempt = executeNodeAttempt({
      accountId: a.account.id,
      type: 'DATA_TRANSFORMER',
      data: { prompt: 'p' },
      executionKey: 'no-ai-1',
      aiProvider: null,
    });
    const error = await attempt.then(
      () => null,
      (e: Error) => e,
    );
    expect(error?.message).to.equal(
      'The AI gateway is not configured: set AI_BASE_URL (an OpenAI-compatible API such as OpenAI, Ollama or vLLM) and AI_API_KEY on the worker',
    );
  });

  it('reports the AI gateway in /healthz as not configured (still 200), or up through GET /models', async () => {
    const plain = await call('GET', '/healthz', { baseUrl: harness().origin });
    expect(plain.status).to.equal(200);
    expect(plain.body.ai).to.deep.equal({ status: 'not configured' });
    const { server, origin } = await listen({ ai: harness().aiProvider });
    try {
      const res = await call('GET', '/healthz', { baseUrl: origin });
      expect(res.status).to.equal(200);
      expect(res.body.ai).to.include({ status: 'up', ok: true });
      const down = new OpenAiCompatibleProvider({ baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'k', timeoutMs: 500 });
      const other = await listen({ ai: down });
      const res2 = await call('GET', '/healthz', { baseUrl: other.origin });
      other.server.close();
      expect(res2.status).to.equal(200);
      expect(res2.body.ai).to.include({ status: 'down', ok: false });
    } finally {
      server.close();
    }
  });

  it('suggests intent phrases through the gateway, leaving out the given ones', async () => {
    const a = await newAccount();
    const agent = (await call('POST', '/agents', { key: a.userKey, body: { name: 'Helper' } })).body;
    const { server, origin } = await listen({ ai: harness().aiProvider });
    try {
      harness().ai.script({ content: JSON.stringify({ phrases: ['I want my money back', 'refund please', 'Can I return this?'] }) });
      const res = await call('POST', `/agents/${agent.id}/intents/generate-phrases`, {
        key: a.userKey,
        baseUrl: `${origin}/public/v1`,
        body: { name: 'refund', trainingPhrases: ['Refund please'], count: 2 },
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body).to.deep.equal({ phrases: ['I want my money back', 'Can I return this?'] });
      const ask = (harness().ai.chats[0].body.messages as { content: string }[])[1].content;
      expect(ask).to.contain('Intent: refund').and.to.contain('Phrases wanted: 2');

      harness().ai.script({ status: 401, body: JSON.stringify({ error: { message: 'bad key' } }) });
      const refused = await call('POST', `/agents/${agent.id}/intents/generate-phrases`, {
        key: a.userKey,
        baseUrl: `${origin}/public/v1`,
        body: { name: 'refund' },
      });
      expect(refused.status).to.equal(503);
      expect(refused.body.message).to.contain('bad key');
    } finally {
      server.close();
    }
  });

  it('makes one attempt per call: a slow answer, a 429 or a 5xx is a transient failure carrying Retry-After, a 400 a permanent one', async () => {
    const fake = new FakeAiServer();
    await fake.start();
    try {
      const provider = new OpenAiCompatibleProvider({ baseUrl: fake.baseUrl, apiKey: 'k', timeoutMs: 300 });
      const ask = () => provider.chat({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: Error) => e);
      fake.script(
        { content: 'late', delayMs: 1_000 },
        { status: 429, headers: { 'retry-after': '3' } },
        { status: 502 },
        { status: 400, body: JSON.stringify({ error: { message: 'bad request' } }) },
        { content: 'on time' },
      );
      const late = await ask();
      expect(late).to.be.instanceOf(AiProviderUnavailableError).and.to.deep.include({ retryAfterMs: null });
      expect((late as Error).message).to.equal('The AI provider did not answer /chat/completions: no answer within 300 ms');
      const limited = await ask();
      expect(limited).to.be.instanceOf(AiProviderUnavailableError).and.to.deep.include({ retryAfterMs: 3000 });
      expect((limited as Error).message).to.equal('The AI provider answered 429: scripted 429');
      expect(await ask())
        .to.be.instanceOf(AiProviderUnavailableError)
        .and.to.deep.include({ retryAfterMs: null });
      const refused = await ask();
      expect(refused).to.be.instanceOf(NodeError).and.to.deep.include({ type: 'AiRequestRefused' });
      expect((refused as Error).message).to.equal('The AI provider refused the request (400): bad request');
      expect(await ask()).to.deep.include({ content: 'on time' });
      expect(fake.chats).to.have.length(5);
    } finally {
      await fake.stop();
    }
  });
});
