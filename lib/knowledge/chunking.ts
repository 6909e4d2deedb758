/**
 * Structural chunking of a document's text for retrieval: Markdown headings (`#` … `######`) open sections, and a
 * section's blocks (paragraphs, list items, fenced code) are packed into chunks of at most `maxChars`, never across
 * a heading. A block longer than that is cut at sentence, then word boundaries. When a section needs several chunks,
 * each one after the first begins with the tail of the one before (`overlapChars`), so a sentence cut between two
 * chunks is found whole in one of them. Every chunk keeps its heading path and its position in the document. Pure:
 * the indexer, the tests and the benchmark all use it.
 */

export interface Chunk {
  /** 0-based order in the document. */
  position: number;
  /** The headings above the chunk, outermost first (the document title is not one). */
  headingPath: string[];
  text: string;
}

export interface ChunkOptions {
  maxChars?: number;
  overlapChars?: number;
}

export const DEFAULT_CHUNK_OPTIONS = { maxChars: 1_200, overlapChars: 150 };

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const LIST_ITEM = /^\s{0,3}([-*+]|\d{1,3}[.)])\s+/;
const FENCE = /^\s{0,3}(```|~~~)/;

/** The blocks of one section: paragraphs, list items and fenced code, in order. */
interface Section {
  headingPath: string[];
  blocks: string[];
}

function sectionsOf(text: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let current: Section = { headingPath: [], blocks: [] };
  let block: string[] = [];
  let fenced = false;
  const endBlock = () => {
    const joined = block.join('\n').trim();
    if (joined) current.blocks.push(joined);
    block = [];
  };
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (FENCE.test(line)) {
      if (!fenced) endBlock();
      block.push(line);
      fenced = !fenced;
      if (!fenced) endBlock();
      continue;
    }
    if (fenced) {
      block.push(line);
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      endBlock();
      if (current.blocks.length) sections.push(current);
      path.length = Math.min(path.length, heading[1]!.length - 1);
      while (path.length < heading[1]!.length - 1) path.push('');
      path.push(heading[2]!.replace(/[*_`]/g, '').trim());
      current = { headingPath: path.filter(Boolean), blocks: [] };
      continue;
    }
    if (!line.trim()) {
      endBlock();
      continue;
    }
    if (LIST_ITEM.test(line)) endBlock();
    block.push(line);
  }
  endBlock();
  if (current.blocks.length) sections.push(current);
  return sections;
}

/** Cuts `text` into pieces of at most `max` characters, at sentence ends, else at spaces, else anywhere. */
export function splitLong(text: string, max: number): string[] {
  if (text.length <= max) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > max) {
    const window = rest.slice(0, max);
    const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('? '), window.lastIndexOf('! '), window.lastIndexOf('\n'));
    const space = window.lastIndexOf(' ');
    const cut = sentence > max / 2 ? sentence + 1 : space > max / 2 ? space : max;
    pieces.push(rest.slice(0, cut).trim());
    rest = rest.slice(cut).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** The last `chars` characters of `text`, starting at a word. */
function tailOf(text: string, chars: number): string {
  if (chars <= 0 || text.length <= chars) return chars <= 0 ? '' : text;
  const tail = text.slice(-chars);
  const space = tail.indexOf(' ');
  return space >= 0 ? tail.slice(space + 1) : tail;
}

export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const { maxChars, overlapChars } = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  const chunks: Chunk[] = [];
  for (const { headingPath, blocks } of sectionsOf(text)) {
    // `parts` starts with the previous chunk's tail once the section has a chunk; `fresh` counts the new pieces.
    let parts: string[] = [];
    let fresh = 0;
    const size = () => parts.reduce((sum, p) => sum + p.length + 2, 0);
    const flush = () => {
      const joined = parts.join('\n\n');
      chunks.push({ position: chunks.length, headingPath, text: joined });
      const overlap = tailOf(joined, overlapChars);
      parts = overlap ? [overlap] : [];
      fresh = 0;
    };
    for (const piece of blocks.flatMap((b) => splitLong(b, maxChars - overlapChars - 2))) {
      if (fresh && size() + piece.length > maxChars) flush();
      parts.push(piece);
      fresh += 1;
    }
    if (fresh) flush();
  }
  return chunks;
}
