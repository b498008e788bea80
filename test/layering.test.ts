// The layering of the tree (docs/architecture.md: Layers): every module
// imports only from its own layer or the layers below it, so schema/ never
// reaches into render/, render/ never into resources/ or routes/, store/ into
// nothing above it. The imports are read with TypeScript's own pre-parser
// (static, dynamic and re-exports alike), from every source file outside
// test/ and bench/, which sit above everything.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Bottom first; a folder is named with its slash, a top-level file by its name. */
const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts', 'log.ts'],
  ['config/'],
  ['store/'],
  ['metrics/'],
  ['svg-safety/'],
  ['schema/'],
  ['datasources/'],
  ['render/'],
  ['history/', 'pool/', 'traffic/'],
  ['resources/', 'auth/'],
  ['http/'],
  ['output/'],
  ['routes/'],
  ['server.ts'],
  ['cli/'],
];

/** Folders that are pure functions: besides the layering, they import nothing from these (render/: data in, SVG and topology out). */
const PURE: Readonly<Record<string, readonly string[]>> = {
  'render/': ['store/'],
};

// web/ is the home page's browser files and deploy/ the deployment files (served or read as they are, importing nothing of the service).
const SKIPPED = new Set(['node_modules', 'test', 'bench', 'data', 'docs', 'web', 'deploy']);

function sourceFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name.startsWith('.') || (dir === ROOT && SKIPPED.has(entry.name))) return [];
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.tmp.ts') ? [full] : [];
  });
}

/** The layer of a file, by its top-level folder or name; undefined for a place no layer names. */
function layerOf(file: string): number | undefined {
  const [top, ...rest] = path.relative(ROOT, file).split(path.sep);
  const name = rest.length > 0 ? `${top}/` : top;
  const found = LAYERS.findIndex((layer) => layer.includes(name));
  return found < 0 ? undefined : found;
}

/** The repository files a source file imports (relative specifiers only: packages are not layers). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
  return importedFiles.map((f) => f.fileName).filter((name) => name.startsWith('.'))
    .map((name) => path.resolve(path.dirname(file), name));
}

const rel = (file: string) => path.relative(ROOT, file);

describe('layering', () => {
  const files = sourceFiles();

  it('places every source file in a layer', () => {
    const unplaced = files.filter((f) => layerOf(f) === undefined).map(rel);
    assert.deepEqual(unplaced, [], 'add the folder to LAYERS here and to docs/architecture.md');
  });

  it('imports nothing from a higher layer', () => {
    const upward: string[] = [];
    let seen = 0;
    for (const file of files) {
      const from = layerOf(file);
      for (const target of importsOf(file)) {
        seen++;
        const to = layerOf(target);
        if (from !== undefined && to !== undefined && to > from) upward.push(`${rel(file)} -> ${rel(target)}`);
      }
    }
    assert.ok(seen > 300, `only ${seen} imports read: the reader is broken`);
    assert.deepEqual(upward, []);
  });

  it('keeps the pure folders pure: render/ reads no store (and, being below them, no HTTP or output cache)', () => {
    const impure: string[] = [];
    for (const file of files) {
      const top = `${rel(file).split(path.sep)[0]}/`;
      const banned = PURE[top] ?? [];
      for (const target of importsOf(file)) {
        if (banned.some((b) => rel(target).startsWith(b))) impure.push(`${rel(file)} -> ${rel(target)}`);
      }
    }
    assert.ok(files.some((f) => rel(f).startsWith('render')), 'render/ read');
    assert.deepEqual(impure, []);
  });

  it('catches an upward import (the reader sees what a module imports)', () => {
    const template = path.join(ROOT, 'schema', 'template.ts');
    assert.ok(importsOf(template).includes(path.join(ROOT, 'svg-safety', 'template.ts')));
    assert.ok(layerOf(path.join(ROOT, 'render', 'svg.ts'))! > layerOf(template)!);
  });

  it('is the order docs/architecture.md gives', () => {
    const doc = readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
    const documented = [...section.matchAll(/^\d+\. (.+?):/gm)].map(([, names]) => [...names.matchAll(/`([^`]+)`/g)].map(([, n]) => n));
    assert.deepEqual(documented, LAYERS);
  });
});
