/**
 * The widget's script, built by the API itself from `widget/src/` with esbuild when the first app is created (about
 * 50 ms), so a fresh clone serves it with no build step. Kept in memory with its gzip form, its SHA-384 integrity
 * (Subresource Integrity) and a content hash for the immutable, versioned URL.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';

export interface WidgetBundle {
  code: Buffer;
  gzip: Buffer;
  /** `sha384-<base64>`: the `integrity` attribute of the script tag. */
  integrity: string;
  /** First 12 hex digits of the SHA-256 of the code: the versioned file is `widget-<hash>.js`. */
  hash: string;
}

/** The gzipped size the bundle must stay under, checked by test/api/widget/widget-assets.test.ts. */
export const WIDGET_GZIP_BUDGET_BYTES = 30 * 1024;

let built: WidgetBundle | undefined;

export function widgetBundle(): WidgetBundle {
  if (built) return built;
  const result = buildSync({
    entryPoints: [join(import.meta.dirname, '..', '..', 'widget', 'src', 'widget.js')],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    legalComments: 'none',
    write: false,
  });
  const code = Buffer.from(result.outputFiles[0]!.contents);
  built = {
    code,
    gzip: gzipSync(code, { level: 9 }),
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
    hash: createHash('sha256').update(code).digest('hex').slice(0, 12),
  };
  return built;
}
