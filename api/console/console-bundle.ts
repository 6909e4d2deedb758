/**
 * The operator console's script and styles, built by the API itself from `console/src/` with esbuild on first use
 * (about 50 ms, as the widget's: api/widget/widget-bundle.ts), so a fresh clone serves `/console` with no build step.
 * Each asset is kept in memory with its gzip form, its SHA-384 integrity and a content hash for its immutable URL.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildSync } from 'esbuild';

export interface ConsoleAsset {
  code: Buffer;
  gzip: Buffer;
  /** `sha384-<base64>`: the `integrity` attribute of the tag that loads it. */
  integrity: string;
  /** First 12 hex digits of the SHA-256 of the code: the file is `/console/assets/console-<hash>.<js|css>`. */
  hash: string;
  type: string;
}

export interface ConsoleBundle {
  js: ConsoleAsset;
  css: ConsoleAsset;
}

/** The gzipped size of script and styles together must stay under this, checked by test/api/console/console-assets.test.ts. */
export const CONSOLE_GZIP_BUDGET_BYTES = 80 * 1024;

const SOURCE = join(import.meta.dirname, '..', '..', 'console', 'src');
let built: ConsoleBundle | undefined;

function asset(entry: string, type: string): ConsoleAsset {
  const result = buildSync({
    entryPoints: [join(SOURCE, entry)],
    bundle: true,
    minify: true,
    format: entry.endsWith('.js') ? 'iife' : undefined,
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    legalComments: 'none',
    write: false,
  });
  const code = Buffer.from(result.outputFiles[0]!.contents);
  return {
    code,
    gzip: gzipSync(code, { level: 9 }),
    integrity: `sha384-${createHash('sha384').update(code).digest('base64')}`,
    hash: createHash('sha256').update(code).digest('hex').slice(0, 12),
    type,
  };
}

export function consoleBundle(): ConsoleBundle {
  built ??= { js: asset('console.js', 'text/javascript; charset=utf-8'), css: asset('console.css', 'text/css; charset=utf-8') };
  return built;
}
