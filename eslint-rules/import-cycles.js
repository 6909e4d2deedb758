// No circle of imports: a file may not import, directly or through others, a file that imports it back. Type-only
// imports count too: a circle of types still ties the files into one unit that can only be read, moved or tested
// together. The files a file imports are read with TypeScript's own pre-processor (every import, export-from,
// dynamic import and `import type`), cached by modification time across the files of one lint run.
import { readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import ts from 'typescript';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
/** file → { mtime, targets } */
const cache = new Map();

/** The project file a relative specifier names (`./x.js` is `./x.ts` in the sources), or undefined. */
function target(from, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  const file = resolve(dirname(from), specifier.replace(/\.js$/, '.ts'));
  try {
    return statSync(file).isFile() ? file : undefined;
  } catch {
    return undefined;
  }
}

/** The project files `file` imports (values and types alike), as absolute paths. */
export function importsOf(file, text) {
  let mtime;
  if (text === undefined) {
    try {
      mtime = statSync(file).mtimeMs;
    } catch {
      return [];
    }
    const known = cache.get(file);
    if (known && known.mtime === mtime) return known.targets;
    text = readFileSync(file, 'utf8');
  }
  const { importedFiles } = ts.preProcessFile(text, true, true);
  const targets = [...new Set(importedFiles.map((i) => target(file, i.fileName)).filter(Boolean))];
  if (mtime !== undefined) cache.set(file, { mtime, targets });
  return targets;
}

/** A path of imports from `start` back to `file` (the files in between), or undefined when there is none. */
function pathBack(file, start) {
  const seen = new Set([start]);
  const stack = [[start, [start]]];
  while (stack.length) {
    const [at, path] = stack.pop();
    for (const next of importsOf(at)) {
      if (next === file) return path;
      if (!seen.has(next)) {
        seen.add(next);
        stack.push([next, [...path, next]]);
      }
    }
  }
  return undefined;
}

/** Every circle among `files` (absolute paths), each as the files it runs through, named relative to the project. */
export function findCircles(files) {
  const circles = [];
  const state = new Map();
  const visit = (file, path) => {
    state.set(file, 'open');
    for (const next of importsOf(file)) {
      if (state.get(next) === 'open') circles.push([...path.slice(path.indexOf(next)), next].map((f) => relative(root, f)).join(' → '));
      else if (!state.has(next)) visit(next, [...path, next]);
    }
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file, [file]);
  return circles;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'no circle of imports, type-only imports included' },
    schema: [],
  },
  create(context) {
    const file = context.filename;
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const next = target(file, source.value);
      if (!next || next === file) return;
      const back = pathBack(file, next);
      if (!back) return;
      const circle = [file, ...back, file].map((f) => relative(root, f)).join(' → ');
      context.report({ node, message: `import circle: ${circle}; move what both sides need into a module of its own` });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source),
    };
  },
};
