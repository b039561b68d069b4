// Checks that every reference in the repository's comments and documents resolves inside the
// repository, so a clone explains itself:
//
// - a path (`services/relay/src/relay-call.ts`, `docs/security.md`, `routes/epay.ts` from beside
//   `routes/`) names a file or folder that exists (or that git ignores because it is generated);
// - "docs/architecture.md section 5.2" (and the other numbered documents: docs/product.md,
//   docs/compatibility.md) names a section that document has; inside a numbered document, a bare
//   "section 3" names one of its own;
// - "rule R7" and "test D2" name a row of docs/security.md; "style rule 12" one of the style rules
//   of CONTRIBUTING.md; "complaint 12" a row of docs/compatibility.md section 7;
// - nothing cites the design, style, spec or reference documents that lived outside the
//   repository ("DESIGN section 5", "spec accounts section 6", "reference 4.7", "STYLE 12").
//
// In source files only comments are read (TypeScript's parser finds them); Markdown is read whole;
// YAML, the Dockerfile and shell scripts by their `#` lines.
//
//   node tools/docs/references.mjs     print every broken reference; exit 1 when there is one
//
// tools/docs/test/references.test.ts fails on any of them, and when .nvmrc and the `engines` of
// the workspaces disagree.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const codeExtensions = new Set(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs']);
const hashCommentExtensions = new Set(['.yaml', '.yml', '.sh']);
const hashCommentFiles = new Set(['Dockerfile', '.ci/run']);
/** Recorded data, generated figures and the lockfile: nothing in them is a reference. */
const skipped = [/(^|\/)__fixtures__\//, /^tools\/bench\/results\//, /^web\/public\//, /^package-lock\.json$/];

/** The first path segments a reference to the repository's own files starts with. */
const topLevel = new Set(['packages', 'services', 'tools', 'web', 'docs', 'deploy', '.ci']);
/** Extensions that make a `folder/name.ext` a file reference even when it is relative. */
const fileExtensions = /\.(md|ts|tsx|mts|cts|js|mjs|cjs|json|ya?ml|sse|sql)$/;

/** The numbered documents comments cite by section. */
const numberedDocuments = ['docs/architecture.md', 'docs/product.md', 'docs/compatibility.md'];

/** Ways of citing what a clone does not carry, and what to write instead. */
const retired = [
  [/(?:\.\.\/)+shared\/|\/work\/shared\b/, 'a folder outside the repository'],
  [/\bDESIGN\b/, 'the design document is not in the repository: cite docs/architecture.md section N'],
  [/\bSTYLE(?:\.md\b|\s+\d)/, 'cite "style rule N" (CONTRIBUTING.md, "Style rules")'],
  [
    /\bREFERENCE\.md\b|security-and-reliability\.md|established-product\.md|accounts-users-settings\.md|channels-tokens-wallet-logs\.md|\bdependencies\.md\b/,
    'a document outside the repository: cite docs/security.md, docs/compatibility.md or docs/product.md',
  ],
  [
    /\bspec(?:'s)?\s+(?:sections?\b|accounts\b|channels\b|\d)|\bSpec\s*(?:\d|:|\()|\bthe spec(?:'s)?\b|\(spec\)/i,
    'the product spec is not in the repository: cite docs/product.md section N',
  ],
  [/\breference\s+(?:sections?\s+)?\d/i, 'the reference notes are not in the repository: cite docs/compatibility.md section N'],
  [/\btest plan\b/i, 'cite the test id ("test D3"), a row of docs/security.md'],
];

const numberList = String.raw`\d+(?:\.\d+)*(?:(?:\s*,\s*|\s+and\s+|\s+to\s+|\s*-\s*)\d+(?:\.\d+)*)*`;
const sectionReference = new RegExp(String.raw`(?:\`?((?:docs\/[\w-]+|CONTRIBUTING|README)\.md)\`?\s*,?\s+)?\bsections?\s+(${numberList})`, 'g');
const idList = String.raw`[A-Z]{1,3}\d{1,2}(?:(?:\s*,\s*|\s+and\s+|\s*-\s*)[A-Z]{1,3}\d{1,2})*`;
const testReference = new RegExp(String.raw`\b(?:tests?|invariant)\s+(${idList})\b`, 'g');
const styleReference = new RegExp(String.raw`\bstyle rules?\s+(${numberList})`, 'gi');
const complaintReference = /\bcomplaints?\s+#?(\d+(?:(?:\s*,\s*|\s+and\s+)#?\d+)*)/gi;
const pathCandidate = /(?<![\w@./:-])((?:\.{1,2}\/)*(?:[\w@-][\w@.-]*\/)+[\w@.-]*)/g;

/** This checker and its test quote the retired forms on purpose. */
const quotesRetiredForms = new Set(['tools/docs/references.mjs', 'tools/docs/test/references.test.ts']);

/** Files of the repository: tracked, and new ones git does not ignore. */
export function repositoryFiles() {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20 });
  return [...new Set(listed.split('\0').filter(Boolean))]
    .filter((file) => !skipped.some((pattern) => pattern.test(file)) && fs.existsSync(path.join(root, file)))
    .sort();
}

function lineAt(text, offset) {
  let line = 1;
  for (let index = text.indexOf('\n'); index !== -1 && index < offset; index = text.indexOf('\n', index + 1)) line++;
  return line;
}

/** Literals whose text may hold `//` or `/*` without being a comment. */
const literalKinds = new Set([
  ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral,
  ts.SyntaxKind.TemplateHead,
  ts.SyntaxKind.TemplateMiddle,
  ts.SyntaxKind.TemplateTail,
  ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.JsxText,
]);

/**
 * The comments of a source file, each with the line it starts on. TypeScript's parser finds the
 * strings, templates, regular expressions and JSX text; every `//` or `/*` outside them starts a
 * comment.
 */
export function sourceComments(file, text) {
  const extension = path.extname(file);
  const kind =
    { '.tsx': ts.ScriptKind.TSX, '.jsx': ts.ScriptKind.JSX, '.js': ts.ScriptKind.JS, '.mjs': ts.ScriptKind.JS, '.cjs': ts.ScriptKind.JS }[extension] ??
    ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const literals = [];
  const visit = (node) => {
    if (literalKinds.has(node.kind)) literals.push([node.getStart(source), node.end]);
    ts.forEachChild(node, visit);
  };
  visit(source);
  literals.sort((a, b) => a[0] - b[0]);
  const comments = [];
  const opener = /\/[/*]/g;
  let literal = 0;
  for (let match = opener.exec(text); match; match = opener.exec(text)) {
    const at = match.index;
    while (literal < literals.length && literals[literal][1] <= at) literal++;
    if (literal < literals.length && literals[literal][0] <= at) {
      opener.lastIndex = literals[literal][1];
      continue;
    }
    const close = match[0] === '//' ? text.indexOf('\n', at) : text.indexOf('*/', at + 2);
    const end = close === -1 ? text.length : match[0] === '//' ? close : close + 2;
    comments.push({ line: lineAt(text, at), text: text.slice(at, end) });
    opener.lastIndex = end;
  }
  return comments;
}

/** The pieces of a file that may hold references: comments, or a whole document. */
export function referenceTexts(file, text) {
  const extension = path.extname(file);
  if (extension === '.md') return [{ line: 1, text }];
  if (codeExtensions.has(extension)) return sourceComments(file, text);
  if (hashCommentExtensions.has(extension) || hashCommentFiles.has(file)) {
    return text.split('\n').flatMap((line, index) => {
      const comment = /^\s*#(?!!)(.*)$/.exec(line);
      return comment ? [{ line: index + 1, text: comment[1] }] : [];
    });
  }
  return [];
}

/** Section numbers of a document's numbered headings (`## 5. The relay`, `### 5.2 The quota gate`). */
export function sectionNumbers(text) {
  return new Set([...text.matchAll(/^#{1,6}\s+(\d+(?:\.\d+)*)\.?\s/gm)].map((match) => match[1]));
}

function numbersOf(list) {
  return [...list.matchAll(/\d+(?:\.\d+)*/g)].map((match) => match[0]);
}

/** What the documents define: section numbers, rule and test ids, style rules, complaints. */
export function targets() {
  const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');
  const security = read('docs/security.md');
  const contributing = read('CONTRIBUTING.md');
  const compatibility = read('docs/compatibility.md');
  const styleSection = contributing.slice(contributing.indexOf('## Style rules'));
  const complaintsSection = compatibility.slice(compatibility.search(/^## 7\. /m));
  return {
    sections: Object.fromEntries(numberedDocuments.map((file) => [file, sectionNumbers(read(file))])),
    rules: new Set([...security.matchAll(/^\| (R\d+) \|/gm)].map((match) => match[1])),
    tests: new Set([...security.matchAll(/^\| ([A-Z]{1,3}\d{1,2}) \|/gm)].map((match) => match[1]).filter((id) => !/^R\d+$/.test(id))),
    styleRules: new Set([...styleSection.matchAll(/^(\d+)\. \*\*/gm)].map((match) => match[1])),
    complaints: new Set([...complaintsSection.matchAll(/^\| (\d+) \|/gm)].map((match) => match[1])),
  };
}

/** Expands `1 to 3` and `1-3` of whole numbers; dotted numbers are taken as they are. */
function expand(list) {
  const numbers = numbersOf(list);
  const ranges = [...list.matchAll(/(\d+)(?:\s+to\s+|\s*-\s*)(\d+)(?![.\d])/g)];
  for (const [, from, to] of ranges) for (let value = Number(from) + 1; value < Number(to); value++) numbers.push(String(value));
  return numbers;
}

/**
 * Whether `candidate` (a path written in `file`) names something in the repository: from the
 * repository's root, from the file's folder or one above it, or, for a path that does not start
 * at the root (`routes/epay.ts`, `lib/clipboard.ts`), as the end of some file's or folder's path.
 */
function resolvePath(file, candidate, entries, ignored) {
  const bases = [root];
  for (let directory = path.dirname(path.join(root, file)); directory.startsWith(root) && directory !== root; directory = path.dirname(directory))
    bases.push(directory);
  const tried = bases.map((base) => path.resolve(base, candidate)).filter((full) => full.startsWith(root));
  if (tried.some((full) => fs.existsSync(full))) return true;
  const bare = candidate.replace(/^(\.\/)+/, '').replace(/\/$/, '');
  const anchored = topLevel.has(bare.split('/')[0]) || candidate.startsWith('../');
  if (!anchored && entries.some((entry) => entry === bare || entry.endsWith(`/${bare}`))) return true;
  return tried.some((full) => ignored(path.relative(root, full)));
}

/** Every file of the list and every folder above one, relative to the root. */
function entriesOf(files) {
  const entries = new Set();
  for (const file of files) {
    for (let entry = file; entry !== '.' && !entries.has(entry); entry = path.dirname(entry)) entries.add(entry);
  }
  return [...entries];
}

/** Markdown without its fenced code blocks (commands and examples), lines kept in place. */
function prose(text) {
  let fenced = false;
  return text
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

function pathsIn(text) {
  const found = [];
  for (const match of text.matchAll(pathCandidate)) {
    const candidate = match[1].replace(/[.]+$/, '');
    if (/[<>{}*$]|\.\.\.|\/\//.test(candidate)) continue;
    const first = candidate.replace(/^(\.{1,2}\/)+/, '').split('/')[0];
    const relative = candidate.startsWith('./') || candidate.startsWith('../');
    if (!topLevel.has(first) && !fileExtensions.test(candidate) && !(relative && candidate.endsWith('/'))) continue;
    found.push({ candidate, index: match.index });
  }
  return found;
}

/** Paths git ignores (generated: dist, data, test output), asked once for a batch. */
function ignoredPaths(paths) {
  if (paths.length === 0) return new Set();
  try {
    // Each path is asked also as a folder: a `dist/` rule matches `web/dist` only when git knows
    // it is a folder, which it cannot when the build has not run yet.
    const asked = paths.flatMap((candidate) => [candidate, `${candidate.replace(/\/$/, '')}/`]);
    const output = execFileSync('git', ['check-ignore', '--no-index', '--stdin'], { cwd: root, input: asked.join('\n'), encoding: 'utf8' });
    const ignored = new Set(output.split('\n').filter(Boolean));
    return new Set(paths.filter((candidate) => ignored.has(candidate) || ignored.has(`${candidate.replace(/\/$/, '')}/`)));
  } catch (error) {
    // Exit status 1: none of them is ignored.
    if (error.status === 1) return new Set();
    throw error;
  }
}

/** Every file of the repository with its text. */
export function repositorySources() {
  return repositoryFiles().map((file) => ({ file, text: fs.readFileSync(path.join(root, file), 'utf8') }));
}

/**
 * Every stretch of a source file that may be a comment: from each `//` or `/*` to the end of its
 * line or comment, overlapping where a string holds one. A superset of the real comments, found
 * without parsing: a file whose stretches cite nothing wrong has no wrong comment, so only the
 * others are parsed (parsing every file is most of the cost).
 */
function commentCandidates(text) {
  const candidates = [];
  for (const match of text.matchAll(/\/[/*]/g)) {
    const at = match.index;
    const close = match[0] === '//' ? text.indexOf('\n', at) : text.indexOf('*/', at + 2);
    const end = close === -1 ? text.length : match[0] === '//' ? close : close + 2;
    candidates.push({ line: lineAt(text, at), text: text.slice(at, end) });
  }
  return candidates;
}

/**
 * Adds the problems of one file's pieces to `problems`. Paths that do not resolve are returned
 * (`unresolved`, each able to report itself): git may ignore them as generated, which the caller
 * asks once for all files.
 */
function checkPieces(file, pieces, known, entries, problems) {
  const unresolved = [];
  const ownSections = numberedDocuments.includes(file) ? known.sections[file] : null;
  const exempt = quotesRetiredForms.has(file);
  for (const piece of pieces) {
    const report = (index, message) => problems.push({ file, line: piece.line + lineAt(piece.text, index) - 1, message });
    for (const [pattern, hint] of exempt ? [] : retired) {
      const match = pattern.exec(piece.text);
      if (match) report(match.index, `"${match[0]}": ${hint}`);
    }
    for (const match of piece.text.matchAll(sectionReference)) {
      const document = match[1] ?? (ownSections ? file : null);
      if (!document) continue;
      const sections = known.sections[document];
      if (!sections) {
        if (match[1] !== undefined) report(match.index, `"${match[0]}": ${document} has no numbered sections`);
        continue;
      }
      for (const number of expand(match[2])) if (!sections.has(number)) report(match.index, `"${match[0]}": ${document} has no section ${number}`);
    }
    if (exempt) continue;
    for (const match of piece.text.matchAll(/\bR(\d{1,2})\b/g)) {
      if (!known.rules.has(`R${match[1]}`)) report(match.index, `rule R${match[1]} is not in docs/security.md`);
    }
    for (const match of piece.text.matchAll(testReference)) {
      for (const id of match[1].match(/[A-Z]{1,3}\d{1,2}/g)) {
        if (!/^R\d+$/.test(id) && !known.tests.has(id)) report(match.index, `test ${id} is not in docs/security.md ("Hostile-input and fault tests")`);
      }
    }
    for (const match of piece.text.matchAll(styleReference)) {
      for (const number of expand(match[1])) if (!known.styleRules.has(number)) report(match.index, `style rule ${number} is not in CONTRIBUTING.md`);
    }
    for (const match of piece.text.matchAll(complaintReference)) {
      for (const number of numbersOf(match[1]))
        if (!known.complaints.has(number)) report(match.index, `complaint ${number} is not in docs/compatibility.md section 7`);
    }
    for (const { candidate, index } of pathsIn(file.endsWith('.md') ? prose(piece.text) : piece.text)) {
      if (!resolvePath(file, candidate, entries, () => false))
        unresolved.push({ file, candidate, report: () => report(index, `${candidate} does not exist in the repository`) });
    }
  }
  return unresolved;
}

/** Every broken reference in `sources` (paths relative to the root): `{ file, line, message }`. */
export function referenceProblems(sources = repositorySources()) {
  const known = targets();
  // A numbered document among the sources is judged by its own text.
  for (const { file, text } of sources) if (numberedDocuments.includes(file)) known.sections[file] = sectionNumbers(text);
  const entries = entriesOf([...repositoryFiles(), ...sources.map(({ file }) => file)]);
  const problems = [];
  const unresolved = [];
  for (const { file, text } of sources) {
    if (codeExtensions.has(path.extname(file))) {
      const rough = [];
      if (checkPieces(file, commentCandidates(text), known, entries, rough).length === 0 && rough.length === 0) continue;
    }
    unresolved.push(...checkPieces(file, referenceTexts(file, text), known, entries, problems));
  }
  const ignoredNames = ignoredPaths(
    [
      ...new Set(
        unresolved.flatMap(({ file, candidate }) => [
          candidate.replace(/^(\.\/)+/, ''),
          path.relative(root, path.resolve(path.dirname(path.join(root, file)), candidate)),
        ]),
      ),
    ].filter((name) => name && !name.startsWith('..')),
  );
  for (const entry of unresolved) {
    if (!resolvePath(entry.file, entry.candidate, entries, (name) => ignoredNames.has(name) || ignoredNames.has(`${name}/`))) entry.report();
  }
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** `.nvmrc` and every workspace's `engines.node`: one version floor, which .nvmrc meets. */
export function engineProblems() {
  const problems = [];
  const rootPackage = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const floor = rootPackage.engines?.node;
  if (!/^>=\d+\.\d+\.\d+$/.test(floor ?? '')) return [`package.json: engines.node should be ">=x.y.z", is ${JSON.stringify(floor)}`];
  for (const workspace of rootPackage.workspaces) {
    const engines = JSON.parse(fs.readFileSync(path.join(root, workspace, 'package.json'), 'utf8')).engines?.node;
    if (engines !== floor) problems.push(`${workspace}/package.json: engines.node is ${JSON.stringify(engines)}, the root's is "${floor}"`);
  }
  const nvmrc = fs.existsSync(path.join(root, '.nvmrc')) ? fs.readFileSync(path.join(root, '.nvmrc'), 'utf8').trim().replace(/^v/, '') : '';
  const parts = (version) => version.split('.').map(Number);
  const [wanted, given] = [parts(floor.slice(2)), parts(nvmrc)];
  const meets = given.length === 3 && given.every(Number.isInteger) && (given[0] - wanted[0] || given[1] - wanted[1] || given[2] - wanted[2]) >= 0;
  if (!meets) problems.push(`.nvmrc (${JSON.stringify(nvmrc)}) should be a full version meeting engines.node "${floor}"`);
  return problems;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = [...referenceProblems().map(({ file, line, message }) => `${file}:${line}: ${message}`), ...engineProblems()];
  for (const problem of problems) console.log(problem);
  process.exit(problems.length > 0 ? 1 : 0);
}
