/** A grayscale PNG showing capital text in a blocky 5×7 font, built by hand, for OCR tests (no canvas needed). */
import { deflateSync } from 'node:zlib';

const FONT: Record<string, string[]> = {
  H: ['10001', '10001', '10001', '11111', '10001', '10001', '10001'],
  E: ['11111', '10000', '10000', '11110', '10000', '10000', '11111'],
  L: ['10000', '10000', '10000', '10000', '10000', '10000', '11111'],
  O: ['01110', '10001', '10001', '10001', '10001', '10001', '01110'],
  ' ': ['00000', '00000', '00000', '00000', '00000', '00000', '00000'],
};

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    let c = (crc ^ byte) & 0xff;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    crc = (crc >>> 8) ^ c;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** `text` (letters H, E, L, O and spaces) in black on white, each font pixel `scale` pixels wide. */
export function textPng(text: string, scale = 8): Buffer {
  const width = (text.length * 6 + 4) * scale;
  const height = 11 * scale;
  const rows: Buffer[] = [];
  for (let y = 0; y < height; y++) {
    const row = Buffer.alloc(width + 1, 255);
    row[0] = 0; // filter: none
    for (let x = 0; x < width; x++) {
      const [gx, gy] = [Math.floor(x / scale) - 2, Math.floor(y / scale) - 2];
      const [char, cx] = [Math.floor(gx / 6), gx % 6];
      if (gx >= 0 && gy >= 0 && gy < 7 && char < text.length && cx < 5 && FONT[text[char]]?.[gy][cx] === '1') row[x + 1] = 0;
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth; color type 0 (grayscale)
  const signature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
  return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]);
}
