/** The widget's script as served: its size budget, integrity hash, caching, and the full-page chat's policy. */
import { createHash } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { WIDGET_GZIP_BUDGET_BYTES } from '../../../api/widget/widget-bundle.js';
import { harness } from '../../setup/harness.js';

describe('livechat widget script', () => {
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${harness().origin}${path}`, { headers });

  it(`stays within ${WIDGET_GZIP_BUDGET_BYTES / 1024} kB gzipped and matches the integrity hash it is published with`, async () => {
    const manifest = (await (await get('/widget/v1/widget.json')).json()) as { src: string; integrity: string; bytes: number; gzipBytes: number };
    expect(manifest.gzipBytes).to.be.at.most(WIDGET_GZIP_BUDGET_BYTES);
    console.log(`      widget.js: ${manifest.bytes} bytes, ${manifest.gzipBytes} gzipped (budget ${WIDGET_GZIP_BUDGET_BYTES})`);
    // Node's fetch would undo the gzip: read the bytes as sent, then unzip them.
    const raw = await new Promise<Buffer>((resolve, reject) => {
      httpGet(`${harness().origin}/widget/v1/widget.js`, { headers: { 'accept-encoding': 'gzip' } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
      }).on('error', reject);
    });
    expect(raw.length).to.equal(manifest.gzipBytes);
    const code = gunzipSync(raw);
    expect(`sha384-${createHash('sha384').update(code).digest('base64')}`).to.equal(manifest.integrity);
    expect(code.length).to.equal(manifest.bytes);

    const stable = await get('/widget/v1/widget.js');
    expect(stable.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(stable.headers.get('cache-control')).to.match(/public, max-age=86400/);
    const etag = stable.headers.get('etag')!;
    expect((await get('/widget/v1/widget.js', { 'if-none-match': etag })).status).to.equal(304);
    const pinned = await get(manifest.src);
    expect(pinned.headers.get('cache-control')).to.equal('public, max-age=31536000, immutable');
    expect(Buffer.from(await pinned.arrayBuffer()).equals(code)).to.equal(true);
    expect((await get('/widget/v1/widget-000000000000.js')).status).to.equal(404);
  });

  it('serves the full-page chat with a policy that runs only its own script', async () => {
    const agentId = '3f1c2a5e-0000-4000-8000-000000000001';
    const page = await get(`/chat/${agentId}`);
    expect(page.status).to.equal(200);
    const html = await page.text();
    expect(html).to.include(`data-agent-id="${agentId}"`).and.include('integrity="sha384-');
    expect(page.headers.get('content-security-policy')).to.include("script-src 'self'").and.include("connect-src 'self'");
    expect((await get('/chat/not-an-agent<script>')).status).to.equal(404);
  });
});
