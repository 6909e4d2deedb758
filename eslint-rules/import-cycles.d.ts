import type { Rule } from 'eslint';

/** The project files `file` imports (values and types alike), as absolute paths; `text` instead of the file's own. */
export function importsOf(file: string, text?: string): string[];
/** Every circle among `files` (absolute paths), each as the files it runs through, named relative to the project. */
export function findCircles(files: string[]): string[];
declare const rule: Rule.RuleModule;
export default rule;
