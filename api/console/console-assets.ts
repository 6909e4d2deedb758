/**
 * The operator console at `/console` (one HTML page; its views are hash routes: `#/`, `#/all`, `#/c/<agent>/<id>`,
 * `#/sessions`) and its two assets at `/console/assets/console-<hash>.js|css`, immutable for a year. The page is never
 * cached, so a new build reaches people at their next load. Its Content-Security-Policy (api/browser-headers.ts)
 * runs this server's script only: the page has no inline script or style.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { consoleBundle, type ConsoleAsset } from './console-bundle.js';

const YEAR = 365 * 86_400;

function sendAsset(ctx: Context, asset: ConsoleAsset): void {
  const etag = `"${asset.hash}"`;
  ctx.set({ 'Cache-Control': `public, max-age=${YEAR}, immutable`, ETag: etag, Vary: 'Accept-Encoding' });
  if (ctx.get('If-None-Match') === etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = asset.type;
  if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
    ctx.set('Content-Encoding', 'gzip');
    ctx.body = asset.gzip;
  } else ctx.body = asset.code;
}

export function consolePage(): string {
  const { js, css } = consoleBundle();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>agentry console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/console/assets/console-${css.hash}.css" integrity="${css.integrity}">
<script src="/console/assets/console-${js.hash}.js" integrity="${js.integrity}" defer></script>
</head>
<body>
<div id="app"><p class="boot">Loading the console…</p></div>
<noscript><p>The agentry console needs JavaScript.</p></noscript>
</body>
</html>
`;
}

export function consoleRoutes(router: Router): void {
  const page = (ctx: Context) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.body = consolePage();
  };
  router.get('/console', page);
  router.get('/console/', page);
  router.get('/console/assets/console-:file', (ctx, next) => {
    const { js, css } = consoleBundle();
    const file = ctx.params.file;
    if (file === `${js.hash}.js`) return sendAsset(ctx, js);
    if (file === `${css.hash}.css`) return sendAsset(ctx, css);
    return next();
  });
}
