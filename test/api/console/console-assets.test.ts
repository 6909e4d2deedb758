/** The console page as served: its policy (no inline script or style), its content-hashed assets, their size budget. */
import { get as httpGet } from 'node:http';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { expect } from 'chai';
import { CONSOLE_GZIP_BUDGET_BYTES } from '../../../api/console/console-bundle.js';
import { harness } from '../../setup/harness.js';

const POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; media-src 'self' data:; " +
  "frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/** The bytes as sent (Node's fetch would undo the gzip). */
const raw = (path: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    httpGet(`${harness().origin}${path}`, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res
        .on('data', (c: Buffer) => chunks.push(c))
        .on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });

describe('operator console page', () => {
  it('serves /console with a policy that runs only its own script and styles, and no inline script or style', async () => {
    const page = await fetch(`${harness().origin}/console`);
    expect(page.status).to.equal(200);
    expect(page.headers.get('content-type')).to.match(/^text\/html/);
    expect(page.headers.get('content-security-policy')).to.equal(POLICY);
    expect(page.headers.get('cache-control')).to.equal('no-cache');
    expect(page.headers.get('x-frame-options')).to.equal('DENY');
    const html = await page.text();
    expect(html).to.match(/<script src="\/console\/assets\/console-[0-9a-f]{12}\.js" integrity="sha384-[^"]+" defer><\/script>/);
    expect(html).to.match(/<link rel="stylesheet" href="\/console\/assets\/console-[0-9a-f]{12}\.css" integrity="sha384-[^"]+">/);
    // Every script has a src, no element carries a style or an on… handler, and there is no <style>.
    expect(html.match(/<script(?![^>]*\ssrc=)[^>]*>/g)).to.equal(null);
    expect(html).not.to.match(/<style|\sstyle=|\son[a-z]+=/i);
    expect((await fetch(`${harness().origin}/console/`)).status).to.equal(200);
  });

  it(`keeps script and styles within ${CONSOLE_GZIP_BUDGET_BYTES / 1024} kB gzipped, at immutable hashed URLs matching their integrity`, async () => {
    const html = await (await fetch(`${harness().origin}/console`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)" integrity="([^"]+)"/g)].map(([, path, integrity]) => ({
      path: path!,
      integrity: integrity!,
    }));
    expect(assets).to.have.length(2);
    let gzipped = 0;
    let plain = 0;
    for (const { path, integrity } of assets) {
      const res = await raw(path, { 'accept-encoding': 'gzip' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-encoding']).to.equal('gzip');
      expect(res.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
      expect(res.headers['content-type']).to.match(path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
      const code = gunzipSync(res.body);
      expect(`sha384-${createHash('sha384').update(code).digest('base64')}`).to.equal(integrity);
      expect((await raw(path, { 'if-none-match': String(res.headers.etag) })).status).to.equal(304);
      gzipped += res.body.length;
      plain += code.length;
    }
    console.log(`      console assets: ${plain} bytes, ${gzipped} gzipped (budget ${CONSOLE_GZIP_BUDGET_BYTES})`);
    expect(gzipped).to.be.at.most(CONSOLE_GZIP_BUDGET_BYTES);
    expect((await raw('/console/assets/console-000000000000.js')).status).to.equal(404);
  });
});
