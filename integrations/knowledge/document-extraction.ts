/**
 * The text of a knowledge-base document, with its structure as Markdown headings so chunking can follow it: PDF
 * through the document-text reader FILE_ANALYSIS uses (`integrations/ai/document-text.ts`, same size limit), DOCX
 * from its `word/document.xml` (paragraph styles Heading1…6 become `#` headings, list paragraphs list items), HTML
 * with its `h1`…`h6`, paragraphs and list items kept and everything else reduced to text, Markdown and plain text as
 * they are. Anything else is a permanent failure naming what is read.
 */
import JSZip from 'jszip';
import { documentText } from '../ai/document-text.js';
import { NodeError } from '../../lib/errors.js';

export type DocumentFormat = 'pdf' | 'docx' | 'html' | 'markdown' | 'text';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const BY_EXTENSION: Record<string, DocumentFormat> = {
  pdf: 'pdf',
  docx: 'docx',
  html: 'html',
  htm: 'html',
  md: 'markdown',
  markdown: 'markdown',
  txt: 'text',
  text: 'text',
};
const BY_TYPE: Record<string, DocumentFormat> = {
  'application/pdf': 'pdf',
  [DOCX]: 'docx',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
  'text/plain': 'text',
};

/** The format of a file, by its media type, else by its name's extension; null when it is none of those read. */
export function formatOf(contentType: string | null | undefined, fileName: string | null | undefined): DocumentFormat | null {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const byName = BY_EXTENSION[(fileName ?? '').split('.').pop()?.toLowerCase() ?? ''];
  // text/plain and octet-stream say little: a .md file uploaded as text/plain is Markdown.
  if (BY_TYPE[type] && !(type === 'text/plain' && byName)) return BY_TYPE[type]!;
  return byName ?? (type.startsWith('text/') ? 'text' : null);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') return String.fromCodePoint(name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : Number(name.slice(1)));
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

/** HTML as Markdown-like text: headings, paragraphs and list items on lines of their own; scripts and styles dropped. */
export function htmlText(html: string): string {
  const body = html
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1>/gi, '')
    .replace(
      /<h([1-6])\b[^>]*>([\s\S]*?)<\/h\1>/gi,
      (_, level: string, inner: string) => `\n\n${'#'.repeat(Number(level))} ${inner.replace(/\s+/g, ' ')}\n\n`,
    )
    .replace(/<li\b[^>]*>/gi, '\n- ')
    .replace(/<(br|hr)\b[^>]*>/gi, '\n')
    .replace(/<\/?(p|div|section|article|ul|ol|table|tr|pre|blockquote|main|header|footer|nav|aside)\b[^>]*>/gi, '\n\n')
    .replace(/<[^>]+>/g, '');
  return decodeEntities(body)
    .split('\n')
    .map((line) => line.replace(/[ \t]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/** The paragraphs of a DOCX body, headings as `#` lines and list paragraphs as items. */
export async function docxText(bytes: Uint8Array): Promise<string> {
  let xml: string | undefined;
  try {
    xml = await (await JSZip.loadAsync(bytes)).file('word/document.xml')?.async('string');
  } catch (error) {
    throw new NodeError(`The DOCX file could not be opened: ${(error as Error).message}`, 'UnreadableFile');
  }
  if (!xml) throw new NodeError('The DOCX file has no word/document.xml', 'UnreadableFile');
  const paragraphs = xml.match(/<w:p[ >][\s\S]*?<\/w:p>/g) ?? [];
  return paragraphs
    .map((p) => {
      const text = decodeEntities((p.match(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g) ?? []).map((t) => t.replace(/<[^>]+>/g, '')).join(''));
      if (!text.trim()) return '';
      const heading = /<w:pStyle w:val="(?:Heading|heading )?([1-6])"/.exec(p) ?? /<w:pStyle w:val="Heading([1-6])"/.exec(p);
      if (heading) return `${'#'.repeat(Number(heading[1]))} ${text.trim()}`;
      if (/<w:numPr>/.test(p)) return `- ${text.trim()}`;
      return text.trim();
    })
    .filter(Boolean)
    .join('\n\n');
}

/** The text of `bytes` as a document of `format`; fails permanently when nothing can be read. */
export async function extractDocument(bytes: Uint8Array, format: DocumentFormat, fileName: string): Promise<string> {
  let text: string;
  if (format === 'pdf') text = (await documentText({ bytes, contentType: 'application/pdf', fileName })).text;
  else if (format === 'docx') text = await docxText(bytes);
  else {
    const raw = Buffer.from(bytes).toString('utf8');
    text = format === 'html' ? htmlText(raw) : raw;
  }
  if (!text.trim()) throw new NodeError(`No text could be read from ${fileName} (${format})`, 'UnreadableFile');
  return text;
}

export const READ_FORMATS = 'PDF, DOCX, HTML, Markdown and plain text';
