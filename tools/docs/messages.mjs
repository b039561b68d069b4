// Checks that console routes say nothing in words of their own: every message a user can read
// comes from the catalogue (packages/contracts/src/messages/, by id, in zh-CN and en-US) through
// `msg(id, params)`, so it reaches the user in their language (docs/architecture.md section 3.12).
//
// In the code behind console routes it finds a sentence written in place:
//
// - as the message of an error the user reads (`new UserError('...')`, `new NotFoundError('...')`);
// - as an answer's or an issue's `message: '...'`, or a zod schema's `error: '...'`;
// - as a zod check's message (`.min(1, '...')`, `.refine(fn, '...')`, `.regex(re, '...')`).
//
// - as a constant or a return value that reads as a sentence (a problem a helper function
//   describes, a message kept for later).
//
// A sentence is a string with two words in it, or any Chinese (for constants and return values:
// three words, the first in lower case, so codes, paths and SQL pass). One word
// (`message: 'bind'`, a code the console reads) is not. Relay routes keep the providers' words and
// are not read, but for their console routes (`/api/limits`, `/api/task`, `/api/mj`). Text that
// is recorded or logged as it is, not answered, says so: `// not a console message: <why>` on its
// line or the line above.
//
//   node tools/docs/messages.mjs     print every sentence written in place; exit 1 when there is one
//
// tools/docs/test/messages.test.ts fails on any of them.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { repositoryFiles, root } from './references.mjs';

/** Where console routes and the schemas and domain code behind them live. */
const consoleCode = [
  /^services\/(identity|billing|channels|notifier|gateway)\/src\//,
  /^services\/relay\/src\/routes\/(limits|tasks)\.ts$/,
  /^packages\/platform\/src\//,
  /^packages\/contracts\/src\//,
];
/** The catalogues themselves, and what no console user reads. */
const notConsole = [
  /^packages\/contracts\/src\/(messages\/|log-messages\.ts$)/,
  // Example payloads of the event catalogue (docs/events.md).
  /^packages\/contracts\/src\/event-catalogue\.ts$/,
  // Configuration is read at start, its errors are the operator's.
  /\/config\.ts$/,
  // The provider shapes of relay errors, and the page a browser gets for an unknown path.
  /^packages\/platform\/src\/error-shapes\.ts$/,
  /^services\/gateway\/src\/static\.ts$/,
  /^packages\/platform\/src\/testing\//,
  /\/migrations\//,
];

/** A literal on this line, or below this comment, is recorded or logged as it is, not answered (say why after the colon). */
const marker = '// not a console message:';

/** Errors whose message a user reads (OperationalError's never is: a 5xx says the fixed words). */
const userErrors = new Set(['UserError', 'UnauthorizedError', 'ForbiddenError', 'NotFoundError', 'TooManyRequestsError', 'AppError']);
/** zod checks whose last string argument is the message shown when they fail. */
const zodChecks = new Set([
  'min',
  'max',
  'length',
  'regex',
  'refine',
  'email',
  'url',
  'nonempty',
  'int',
  'positive',
  'nonnegative',
  'negative',
  'startsWith',
  'endsWith',
  'includes',
  'gt',
  'gte',
  'lt',
  'lte',
  'multipleOf',
]);

/** Two words, or any Chinese: what a person reads, not a code. */
const isSentence = (text) => /[\u4e00-\u9fff]/.test(text) || /[A-Za-z]{2,}[^A-Za-z\n]*\s[^A-Za-z\n]*[A-Za-z]{2,}/.test(text);

/** Words in a sentence (three or more, the first in lower case), or any Chinese: not a code, a path or SQL. */
const isProse = (text) => /[\u4e00-\u9fff]/.test(text) || /(^|[ (])[a-z][a-z'-]*( +[a-z][\w'-]*[,:;]?){2,}/.test(text);

/** The text of a literal written in place (a template's fixed parts), or null for anything else. */
function literalText(node) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isTemplateExpression(node)) return [node.head.text, ...node.templateSpans.map((span) => span.literal.text)].join('x');
  if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.PlusToken) return [literalText(node.left), literalText(node.right)].join(' ');
  if (ts.isConditionalExpression(node)) return [literalText(node.whenTrue), literalText(node.whenFalse)].join(' ');
  if (ts.isParenthesizedExpression(node)) return literalText(node.expression);
  return null;
}

/** Whether an object property is part of a zod call's parameters (`z.string({ error: '...' })`, `.min(1, { error })`). */
function inZodCall(property) {
  const call = property.parent?.parent;
  if (!call || !ts.isCallExpression(call)) return false;
  const callee = call.expression;
  return ts.isPropertyAccessExpression(callee) && ((ts.isIdentifier(callee.expression) && callee.expression.text === 'z') || zodChecks.has(callee.name.text));
}

const calleeName = (expression) =>
  ts.isIdentifier(expression) ? expression.text : ts.isPropertyAccessExpression(expression) ? expression.name.text : undefined;

/** Every sentence written in place in one file: where, and the words. */
export function sentencesIn(file, text) {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found = [];
  const lines = text.split('\n');
  const report = (node, why, test = isSentence) => {
    const words = literalText(node);
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    const marked = [line, line - 1].some((at) => at >= 0 && (lines[at] ?? '').includes(marker));
    if (words !== null && test(words) && !marked) {
      found.push({ file, line: line + 1, message: `${why}: ${node.getText(source).slice(0, 80)}` });
    }
  };
  const visit = (node) => {
    if (ts.isNewExpression(node) && userErrors.has(calleeName(node.expression)) && node.arguments?.[0]) {
      report(node.arguments[0], 'an error message written in place');
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'message') {
      report(node.initializer, 'a message written in place');
    } else if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && node.name.text === 'error' && inZodCall(node)) {
      report(node.initializer, 'a schema error written in place');
    } else if (ts.isVariableDeclaration(node) && node.initializer) {
      report(node.initializer, 'a sentence kept in a constant', isProse);
    } else if (ts.isReturnStatement(node) && node.expression) {
      report(node.expression, 'a sentence returned', isProse);
    } else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && zodChecks.has(node.expression.name.text)) {
      const last = node.arguments.at(-1);
      if (last && node.arguments.length > (node.expression.name.text === 'refine' || node.expression.name.text === 'regex' ? 1 : 0)) {
        report(last, 'a check message written in place');
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every sentence written in place in the code behind console routes. */
export function messageProblems() {
  return repositoryFiles()
    .filter((file) => /\.tsx?$/.test(file) && consoleCode.some((pattern) => pattern.test(file)) && !notConsole.some((pattern) => pattern.test(file)))
    .flatMap((file) => sentencesIn(file, fs.readFileSync(path.join(root, file), 'utf8')));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problems = messageProblems();
  for (const { file, line, message } of problems) console.log(`${file}:${line}: ${message}`);
  process.exit(problems.length > 0 ? 1 : 0);
}
