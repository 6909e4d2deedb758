/**
 * The question set of `knowledge.bench.ts`, written by hand from the Markdown manuals under node_modules: for each,
 * a question a developer would ask in their own words, the manual that answers it (its path under node_modules;
 * nested copies of the same package count) and a short string of the answer, checked to be in that manual. A query
 * finds the answer when one of its top passages comes from that manual and holds that string (in its text or its
 * heading path: the passage as the model reads it). Questions were written before any ranking was tuned and were not
 * changed to fit the results. One correction since (2026-11-26): the debug question expected `DEBUG=*,-not_this`, which
 * is only in the Windows CMD and PowerShell notes (shell syntax for setting the variable, not the feature); the
 * question, which does not mention Windows, is answered by the "Wildcards" section (`DEBUG=*,-connect:*` "would
 * include all debuggers except those starting with connect:"), so that is now the expected string. A second
 * (2026-11-26): the tesseract question named only tesseract.js's README, but the package's API reference
 * (`docs/api.md`, "worker.recognize … executes OCR") answers it as well, so either manual counts.
 */
export interface BenchQuestion {
  question: string;
  /** The manual, as its document title: the path under node_modules (matched at its end); several when each answers. */
  manual: string | string[];
  /** Text the answering passage holds (case-insensitive). */
  answer: string;
}

export const QUESTIONS: BenchQuestion[] = [
  { question: 'Which version of node does koa need?', manual: 'koa/Readme.md', answer: 'v18.0.0' },
  { question: 'force chalk to output colors with an environment variable', manual: 'chalk/readme.md', answer: 'FORCE_COLOR' },
  { question: 'case insensitive matching in minimatch', manual: 'minimatch/README.md', answer: 'nocase' },
  { question: 'what does a tilde range like ~1.2.3 allow in semver', manual: 'semver/README.md', answer: '>=1.2.3 <1.3.0-0' },
  { question: 'allow credentials in koa cors', manual: '@koa/cors/README.md', answer: 'Access-Control-Allow-Credentials' },
  { question: 'limit the maximum file size busboy accepts', manual: 'busboy/README.md', answer: 'fileSize' },
  { question: 'convert "2 days" to milliseconds', manual: 'ms/readme.md', answer: "ms('2 days')" },
  { question: 'close idle clients in the postgres pool after some time', manual: 'pg-pool/README.md', answer: 'idleTimeoutMillis' },
  { question: 'show human readable timestamps with pino-pretty', manual: 'pino-pretty/Readme.md', answer: 'translateTime' },
  { question: 'how do I give a commander option a default value', manual: 'commander/Readme.md', answer: 'default value' },
  { question: 'does cross-spawn support shebangs on windows', manual: 'cross-spawn/README.md', answer: 'shebang' },
  { question: 'respond to OPTIONS and 405 Method Not Allowed with koa router', manual: '@koa/router/README.md', answer: 'allowedMethods' },
  { question: 'run promises with limited concurrency', manual: 'p-limit/readme.md', answer: 'pLimit(concurrency)' },
  { question: 'create a temporary file synchronously', manual: 'tmp/README.md', answer: 'tmp.fileSync' },
  {
    question: 'wait until a file has finished being written before chokidar emits the event',
    manual: 'chokidar/README.md',
    answer: 'awaitWriteFinish',
  },
  { question: 'enable all debug output except one namespace', manual: 'debug/README.md', answer: 'DEBUG=*,-connect:*' },
  { question: 'load environment variables from .env with ES module import', manual: 'dotenv/README.md', answer: "import 'dotenv/config'" },
  { question: 'execute a callback when an HTTP response has finished', manual: 'on-finished/README.md', answer: 'onFinished(res' },
  { question: 'qs array index limit when parsing query strings', manual: 'qs/README.md', answer: 'arrayLimit' },
  { question: 'collect the default Node.js process metrics for Prometheus', manual: 'prom-client/README.md', answer: 'collectDefaultMetrics' },
  { question: 'replace redacted values in pino logs with a custom text', manual: 'pino/docs/redaction.md', answer: 'censor' },
  { question: 'glob all js files but ignore node_modules', manual: 'glob/README.md', answer: "ignore: 'node_modules/**'" },
  { question: 'decode a buffer in windows-1251 encoding', manual: 'iconv-lite/README.md', answer: 'iconv.decode' },
  { question: 'create a 404 error with a message', manual: 'http-errors/README.md', answer: 'createError(404' },
  { question: 'build a URL path from parameters with path-to-regexp', manual: 'path-to-regexp/Readme.md', answer: 'compile("/user/:id")' },
  { question: 'minimum internal buffer length before sonic-boom writes', manual: 'sonic-boom/README.md', answer: 'minLength' },
  { question: 'get the content type of a file extension', manual: 'mime-types/README.md', answer: 'lookup' },
  { question: 'set a time to live on lru-cache entries', manual: 'lru-cache/README.md', answer: 'ttl' },
  { question: 'serve a file as an attachment with a filename in Content-Disposition', manual: 'content-disposition/README.md', answer: 'attachment' },
  { question: 'recognize text in an image with tesseract', manual: ['tesseract.js/README.md', 'tesseract.js/docs/api.md'], answer: 'recognize' },
  { question: 'write a large xlsx workbook with streaming in exceljs', manual: 'exceljs/README.md', answer: 'streaming' },
  { question: 'define a property based test with fast-check', manual: 'fast-check/README.md', answer: 'fc.property' },
  { question: 'generate a random v4 uuid', manual: 'uuid/README.md', answer: 'v4' },
  { question: 'parse YAML into a JavaScript object', manual: 'js-yaml/README.md', answer: 'load' },
  { question: 'expand a brace pattern like {a,b} into a list', manual: 'braces/README.md', answer: 'expand' },
  { question: 'check whether a string matches a glob pattern with micromatch', manual: 'micromatch/README.md', answer: 'isMatch' },
  { question: 'format a date as a string with dayjs', manual: 'dayjs/README.md', answer: 'format' },
  { question: 'parse multipart form data bodies in koa', manual: 'koa-body/README.md', answer: 'multipart' },
  { question: 'why is prettier opinionated', manual: 'prettier/README.md', answer: 'opinionated' },
  { question: 'create a zip archive of a directory with archiver', manual: 'archiver/README.md', answer: 'zip' },
];
