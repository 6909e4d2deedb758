/** A local HTTP file server for nodes that download files: fixed files by path, a file that claims to be huge, and 404s. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FileServer {
  origin: string;
  hits: string[];
  close(): void;
}

/** Serves `files` (path → content type and bytes); `/huge` announces 30 MB and never sends them. */
export async function startFileServer(files: Record<string, { type: string; bytes: Uint8Array }>): Promise<FileServer> {
  const hits: string[] = [];
  const server: Server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const file = files[req.url ?? ''];
    if (file) return res.writeHead(200, { 'content-type': file.type, 'content-length': file.bytes.byteLength }).end(file.bytes);
    if (req.url === '/huge') {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': 30 * 1024 * 1024 });
      res.write('ID3');
      setTimeout(() => res.destroy(), 200);
      return;
    }
    res.writeHead(404).end('no such file');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hits,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
