/**
 * The text of a downloaded document, read locally: PDF text through pdf.js (`unpdf`), images through Tesseract
 * (`tesseract.js`) with the English language data of the `@tesseract.js-data/eng` package, so OCR works offline;
 * plain text and JSON as they are. Other types fail the node.
 */
import { createRequire } from 'node:module';
import { extractText, getDocumentProxy } from 'unpdf';
import { createWorker } from 'tesseract.js';
import type { Downloaded } from './download.js';
import { NodeError } from '../../lib/errors.js';

/** The largest document read (FILE_ANALYSIS downloads, knowledge-base uploads and URL imports). */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

const IMAGE = /^image\/(png|jpeg|jpg|gif|bmp|webp|tiff)$/;
const EXTENSIONS: Record<string, string> = { pdf: 'application/pdf', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', txt: 'text/plain' };

/** The language data folder, resolved from the package so no download is ever attempted. */
const english = createRequire(import.meta.url)('@tesseract.js-data/eng') as { langPath: string; gzip: boolean };

/** The media type, from the answer's Content-Type, or the file name's extension when the server says nothing useful. */
function mediaType(file: Downloaded): string {
  if (file.contentType !== 'application/octet-stream') return file.contentType.toLowerCase();
  return EXTENSIONS[file.fileName.split('.').pop()?.toLowerCase() ?? ''] ?? file.contentType;
}

export async function documentText(file: Downloaded): Promise<{ text: string; kind: 'pdf' | 'image' | 'text' }> {
  const type = mediaType(file);
  if (type === 'application/pdf') {
    try {
      // verbosity 0: pdf.js would print repair warnings of damaged files to the worker's stdout.
      const pdf = await getDocumentProxy(new Uint8Array(file.bytes), { verbosity: 0 });
      const { text } = await extractText(pdf, { mergePages: true });
      return { text: text.trim(), kind: 'pdf' };
    } catch (error) {
      throw new NodeError(`The PDF at ${file.fileName} could not be read: ${(error as Error).message}`, 'UnreadableFile');
    }
  }
  if (IMAGE.test(type)) {
    const worker = await createWorker('eng', 1, { langPath: english.langPath, gzip: english.gzip, cacheMethod: 'none' });
    try {
      const { data } = await worker.recognize(Buffer.from(file.bytes));
      return { text: data.text.trim(), kind: 'image' };
    } catch (error) {
      throw new NodeError(`The image ${file.fileName} could not be read: ${(error as Error).message}`, 'UnreadableFile');
    } finally {
      await worker.terminate();
    }
  }
  if (type.startsWith('text/') || type === 'application/json') return { text: Buffer.from(file.bytes).toString('utf8'), kind: 'text' };
  throw new NodeError(`FILE_ANALYSIS reads PDF, images (PNG, JPEG, …) and text files, not ${type}`, 'UnsupportedFile');
}
