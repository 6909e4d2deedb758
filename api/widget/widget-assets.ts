/**
 * The widget's files: `/widget/v1/widget.js` (the script tag's URL: cached for a day, revalidated by ETag), the same
 * bytes at `/widget/v1/widget-<hash>.js` (immutable, cached for a year), `/widget/v1/widget.json` (that URL and its
 * integrity hash, for a script tag pinned with `integrity`), and `/chat/{agentId}`, the full-page chat to share as a
 * link. Gzipped for clients that accept it.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { UUID } from '../../db/agents/agents.service.js';
import { widgetBundle } from './widget-bundle.js';

const DAY = 86_400;

function sendScript(ctx: Context, cache: string): void {
  const bundle = widgetBundle();
  const etag = `"${bundle.hash}"`;
  ctx.set({ 'Cache-Control': cache, ETag: etag, 'Cross-Origin-Resource-Policy': 'cross-origin', Vary: 'Accept-Encoding' });
  if (ctx.get('If-None-Match') === etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'text/javascript; charset=utf-8';
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = bundle.gzip;
  } else ctx.body = bundle.code;
}

const page = (agentId: string, src: string, integrity: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chat</title>
</head>
<body>
<script src="${src}" integrity="${integrity}" data-agent-id="${agentId}" data-mode="page"></script>
</body>
</html>
`;

export function widgetAssetRoutes(router: Router): void {
  router.get('/widget/v1/widget.js', (ctx) => sendScript(ctx, `public, max-age=${DAY}, stale-while-revalidate=${7 * DAY}`));
  router.get('/widget/v1/widget-:hash.js', (ctx, next) =>
    ctx.params.hash === widgetBundle().hash ? sendScript(ctx, `public, max-age=${365 * DAY}, immutable`) : next(),
  );
  router.get('/widget/v1/widget.json', (ctx) => {
    const { hash, integrity, code, gzip } = widgetBundle();
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = { src: `/widget/v1/widget-${hash}.js`, integrity, bytes: code.length, gzipBytes: gzip.length };
  });
  router.get('/chat/:agentId', (ctx, next) => {
    if (!UUID.test(ctx.params.agentId)) return next();
    const { hash, integrity } = widgetBundle();
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = page(ctx.params.agentId.toLowerCase(), `/widget/v1/widget-${hash}.js`, integrity);
  });
}
