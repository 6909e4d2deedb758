/**
 * The API reference at `/docs`: Swagger UI, served from the `swagger-ui-dist` npm package on this server (no CDN,
 * so it works without internet access), reading the OpenAPI document the API serves. Swagger UI was chosen over
 * Redoc and Scalar because its package is a prebuilt static bundle with no runtime dependencies, it renders
 * OpenAPI 3.1 with schemas, examples and vendor extensions (`x-key-scope`), and it can send requests with a key
 * ("Try it out").
 */
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type Router from '@koa/router';

const assetsDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The package files the page loads, by URL name; nothing else of the package folder is reachable. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

/**
 * Swagger UI's settings, in a script file rather than inline so a strict Content-Security-Policy can forbid inline
 * scripts. `validatorUrl: null` keeps it from sending the document to swagger.io's validator; `showExtensions`
 * shows each operation's `x-key-scope`; `filter` searches operations by tag.
 */
const initializer = (openApiUrl: string) => `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: ${JSON.stringify(openApiUrl)},
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    showExtensions: true,
    displayOperationId: true,
    filter: true,
    persistAuthorization: false,
    defaultModelsExpandDepth: 1,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>agentry API reference</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js"></script>
<script src="/docs/assets/init.js"></script>
</body>
</html>
`;

/** Mounts `GET /docs` and its assets on `router`; the page reads the document at `openApiUrl`. */
export function apiReferenceRoutes(router: Router, openApiUrl: string): void {
  const init = initializer(openApiUrl);
  router.get('/docs', (ctx) => {
    ctx.type = 'html';
    ctx.body = page;
  });
  router.get('/docs/assets/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = init;
  });
  router.get('/docs/assets/:file', (ctx, next) => {
    const type = ASSETS[ctx.params.file!];
    if (!type) return next();
    ctx.type = type;
    // The package version is pinned: a day of caching is safe and saves reloading 1.7 MB of script.
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = createReadStream(join(assetsDir, ctx.params.file!));
  });
}
