/**
 * Human-readable API reference at `/docs`, rendered on the server from the OpenAPI document, self-contained
 * (no scripts, no CDN) so it works on machines without internet access.
 */
import type { OpenApiDocument } from './openapi.js';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function json(value: unknown): string {
  return `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;
}

/** Content by media type: JSON mostly; multipart uploads and binary downloads too. */
type Content = Record<string, { schema: unknown }>;

interface Operation {
  summary?: string;
  'x-key-scope'?: string;
  parameters?: { name: string; in: string; required: boolean; schema: unknown }[];
  requestBody?: { content: Content };
  responses: Record<string, { description: string; content?: Content }>;
}

function body(content: Content): string {
  return Object.entries(content)
    .map(([type, { schema }]) => (type === 'application/json' ? json(schema) : `<p><code>${escapeHtml(type)}</code></p>${json(schema)}`))
    .join('');
}

function renderOperation(method: string, path: string, op: Operation): string {
  const scope = op['x-key-scope'] ?? 'any';
  const params = (op.parameters ?? []).map((p) => `<li><code>${escapeHtml(p.name)}</code> (${p.in}${p.required ? ', required' : ''})</li>`).join('');
  const responses = Object.entries(op.responses)
    .map(([status, r]) => `<li><b>${status}</b> ${escapeHtml(r.description)}${r.content ? body(r.content) : ''}</li>`)
    .join('');
  return `<section id="${escapeHtml(`${method}-${path}`)}">
<h3><span class="m ${method}">${method.toUpperCase()}</span> <code>${escapeHtml(path)}</code> <span class="scope">key: ${escapeHtml(scope)}</span></h3>
<p>${escapeHtml(op.summary ?? '')}</p>
${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ''}
${op.requestBody ? `<h4>Body</h4>${body(op.requestBody.content)}` : ''}
<h4>Responses</h4><ul>${responses}</ul>
</section>`;
}

export function renderDocsPage(doc: OpenApiDocument): string {
  const info = doc.info as { title: string; version: string; description: string };
  const servers = doc.servers as { url: string }[];
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const sections = Object.entries(paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => method !== 'servers')
      .map(([method, op]) => renderOperation(method, path, op)),
  );
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(info.title)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
pre{background:#f5f5f5;padding:.6rem;overflow:auto;font-size:13px}
.m{display:inline-block;min-width:4.5rem;text-align:center;color:#fff;border-radius:3px;padding:0 .3rem;font-size:13px}
.get{background:#2b7bb9}.post{background:#2f9e44}.put{background:#d9480f}.patch{background:#ae3ec9}.delete{background:#c92a2a}
.scope{font-size:13px;color:#666;margin-left:.5rem}section{border-top:1px solid #ddd;padding-top:.5rem}
</style></head><body>
<h1>${escapeHtml(info.title)} <small>v${escapeHtml(info.version)}</small></h1>
<p>Base URL: <code>${escapeHtml(servers[0]?.url ?? '')}</code> · machine-readable: <a href="/public/v1/openapi.json">openapi.json</a></p>
<p>${escapeHtml(info.description)}</p>
${sections.join('\n')}
</body></html>`;
}
