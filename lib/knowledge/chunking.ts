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
/** A collapsible section of GitHub Markdown: `<details><summary>Title</summary>`, a heading below the current one. */
const SUMMARY = /^\s*(?:<details[^>]*>\s*)?<summary[^>]*>(.*?)<\/summary>/i;
const DETAILS_END = /^\s*<\/details>\s*$/i;
const LIST_ITEM = /^\s{0,3}([-*+]|\d{1,3}[.)])\s+/;
const FENCE = /^\s{0,3}(```|~~~)/;

/** The blocks of one section: paragraphs, list items and fenced code, in order. */
interface Section {
  headingPath: string[];
  blocks: string[];
}

/**
 * A heading as words: badges and other images left out, links as their text, HTML tags and emphasis marks removed
 * (`# dotenv [![NPM version](…)](…)` is "dotenv", not "dotenv NPM version").
 */
export function headingText(raw: string): string {
  return raw
    .replace(/!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])?/g, '')
    .replace(/\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])/g, '$1')
    .replace(/<[^>]*>/g, '')
    .replace(/[*`]|(?<!\w)_+|_+(?!\w)/g, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Prose as a reader of the rendered page sees it: images (badges, logos, screenshots; Markdown or `<img>`) and link
 * reference definitions (`[npm-image]: https://…`) left out. A README's badges would otherwise put "npm version",
 * "build status" and "downloads" into the words of its first chunk, and the passages the model reads.
 */
export function readable(prose: string): string {
  return prose
    .replace(/^\s{0,3}\[[^\]]+\]:\s*\S+.*$/gm, '')
    .replace(/\[!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])\](?:\([^)]*\)|\[[^\]]*\])/g, '')
    .replace(/!\[[^\]]*\](?:\([^)]*\)|\[[^\]]*\])/g, '')
    .replace(/<img\b[^>]*>/gi, '')
    .replace(/\n{2,}/g, '\n');
}

function sectionsOf(text: string): Section[] {
  const sections: Section[] = [];
  const path: string[] = [];
  let current: Section = { headingPath: [], blocks: [] };
  let block: string[] = [];
  let fenced = false;
  /** The level of the last Markdown heading: a `<summary>` heading is one below it. */
  let level = 0;
  const endBlock = () => {
    const joined = (FENCE.test(block[0] ?? '') ? block.join('\n') : readable(block.join('\n'))).trim();
    if (joined) current.blocks.push(joined);
    block = [];
  };
  const open = (depth: number, heading: string | null) => {
    endBlock();
    if (current.blocks.length) sections.push(current);
    path.length = Math.min(path.length, depth - 1);
    while (path.length < depth - 1) path.push('');
    if (heading !== null) path.push(heading);
    current = { headingPath: path.filter(Boolean), blocks: [] };
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
      level = heading[1]!.length;
      open(level, headingText(heading[2]!));
      continue;
    }
    const summary = SUMMARY.exec(line);
    if (summary) {
      open(level + 1, headingText(summary[1]!));
      const rest = line
        .slice(summary.index + summary[0].length)
        .replace(/<br\s*\/?>/gi, '')
        .trim();
      if (rest) block.push(rest);
      continue;
    }
    if (DETAILS_END.test(line) && path.length > level) {
      open(level + 1, null);
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

/**
 * The document's first heading (outside fenced code), as words: its title as the page shows it (`VACUUM`, `json —
 * JSON encoder and decoder`), which the headings of its sections may not repeat. Indexed with every chunk's headings.
 */
export function leadHeading(text: string): string | undefined {
  let fenced = false;
  for (const line of text.split('\n')) {
    if (FENCE.test(line)) fenced = !fenced;
    const heading = fenced ? null : HEADING.exec(line);
    if (heading) return headingText(heading[2]!) || undefined;
  }
  return undefined;
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

/** Whether `section` lies under `parent` (its heading path extends the parent's). */
const under = (section: Section, parent: Section) =>
  section.headingPath.length > parent.headingPath.length && parent.headingPath.every((h, i) => section.headingPath[i] === h);

/** A section's text with its heading as a Markdown line, as it reads inside its parent's chunk. */
const withHeading = (section: Section) =>
  [`${'#'.repeat(Math.min(6, section.headingPath.length))} ${section.headingPath.at(-1)}`, ...section.blocks].join('\n\n');

const lengthOf = (blocks: string[]) => blocks.reduce((sum, b) => sum + b.length + 2, 0);

export function chunkText(text: string, options: ChunkOptions = {}): Chunk[] {
  const { maxChars, overlapChars } = { ...DEFAULT_CHUNK_OPTIONS, ...options };
  const chunks: Chunk[] = [];
  const sections = sectionsOf(text);
  for (let s = 0; s < sections.length; s++) {
    const { headingPath, blocks } = sections[s]!;
    // A section that fits in one chunk takes the whole subsections that follow it while they fit too (a function's
    // one-line description with its parameters, a product's intro with its first topics), their headings kept as
    // lines of the text; the chunk's heading path is the first section's. Sibling sections are never packed together.
    if (lengthOf(blocks) <= maxChars) {
      const parts = [blocks.join('\n\n')];
      while (s + 1 < sections.length && under(sections[s + 1]!, sections[s]!)) {
        const next = withHeading(sections[s + 1]!);
        if (lengthOf(parts) + next.length + 2 > maxChars) break;
        parts.push(next);
        sections.splice(s + 1, 1);
      }
      chunks.push({ position: chunks.length, headingPath, text: parts.join('\n\n') });
      continue;
    }
    // `parts` starts with the previous chunk's tail once the section has a chunk; `fresh` counts the new pieces.
    let parts: string[] = [];
    let fresh = 0;
    const flush = () => {
      const joined = parts.join('\n\n');
      chunks.push({ position: chunks.length, headingPath, text: joined });
      const overlap = tailOf(joined, overlapChars);
      parts = overlap ? [overlap] : [];
      fresh = 0;
    };
    for (const piece of blocks.flatMap((b) => splitLong(b, maxChars - overlapChars - 2))) {
      if (fresh && lengthOf(parts) + piece.length > maxChars) flush();
      parts.push(piece);
      fresh += 1;
    }
    if (fresh) flush();
  }
  return chunks;
}
