// The layering rule: imports only point down the layers of the house, lib → db → integrations → nodes →
// activities and workflows → worker, api and launcher (scripts and tests above all). A file may import its own
// folder and any lower layer; a relative import of a higher layer, or of a sibling of the same layer (activities ↔
// workflows, worker ↔ api), is an error. Type-only imports of activities by workflows are how Temporal workflows name
// their activities, so `allowTypes` lets a layer name another's types.
import { dirname, relative, resolve, sep } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/** Top folder of a path inside the project, or undefined outside it. */
function topFolder(file) {
  const rel = relative(root, file);
  if (rel.startsWith('..') || rel === '') return undefined;
  const [top] = rel.split(sep);
  return rel.includes(sep) ? top : undefined;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'imports point down the layers of the house' },
    schema: [
      {
        type: 'object',
        properties: {
          layers: { type: 'object', additionalProperties: { type: 'integer' } },
          allowTypes: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
        },
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { layers, allowTypes = [] } = context.options[0];
    const from = topFolder(context.filename);
    if (from === undefined || !(from in layers)) return {};
    const check = (node, source, typeOnly) => {
      if (!source || typeof source.value !== 'string' || !source.value.startsWith('.')) return;
      const to = topFolder(resolve(dirname(context.filename), source.value));
      if (to === undefined || to === from || !(to in layers)) return;
      if (layers[to] < layers[from]) return;
      if (typeOnly && allowTypes.some(([a, b]) => a === from && b === to)) return;
      const how = layers[to] === layers[from] ? 'a sibling of the same layer' : 'a higher layer';
      context.report({
        node,
        message: `${from}/ may not import ${to}/ (${how}): imports point down lib → db → integrations → nodes → activities, workflows → worker, api, launcher`,
      });
    };
    const typeOnly = (node) =>
      node.importKind === 'type' ||
      node.exportKind === 'type' ||
      (node.specifiers?.length > 0 && node.specifiers.every((s) => s.importKind === 'type'));
    return {
      ImportDeclaration: (node) => check(node, node.source, typeOnly(node)),
      ExportNamedDeclaration: (node) => check(node, node.source, typeOnly(node)),
      ExportAllDeclaration: (node) => check(node, node.source, typeOnly(node)),
      ImportExpression: (node) => check(node, node.source, false),
    };
  },
};
