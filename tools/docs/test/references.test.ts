import { engineProblems, referenceProblems, sectionNumbers, sourceComments } from '../references.mjs';

/**
 * A clone carries no design notes beside the repository: every path, section, rule, test id,
 * style rule and complaint a comment or document cites must resolve inside it
 * (tools/docs/references.mjs says what counts; CONTRIBUTING.md, "References in comments and docs").
 */
describe('references in comments and documents', () => {
  it('all resolve inside the repository: fix the reference, or add what it names', () => {
    expect(referenceProblems().map(({ file, line, message }) => `${file}:${line}: ${message}`)).toEqual([]);
  });

  it('agree on the Node version: .nvmrc meets engines.node, the same in every workspace', () => {
    expect(engineProblems()).toEqual([]);
  });
});

describe('the reference checker', () => {
  const problemsOf = (file: string, text: string) => referenceProblems([{ file, text }]).map(({ line, message }) => `${line}: ${message}`);

  it('reads comments only in source files, not strings or JSX text', () => {
    const text = ["const a = 'see DESIGN section 5'; // a comment", '/** A doc comment', ' * over two lines. */', 'const b = <p>// not a comment</p>;'].join(
      '\n',
    );
    expect(sourceComments('x.tsx', text).map(({ line, text }) => [line, text])).toEqual([
      [1, '// a comment'],
      [2, '/** A doc comment\n * over two lines. */'],
    ]);
    expect(problemsOf('services/x/src/a.ts', "const note = 'DESIGN section 5 and services/none.ts';")).toEqual([]);
  });

  it('refuses citations of the documents that lived outside the repository', () => {
    expect(
      problemsOf(
        'services/x/src/a.ts',
        [
          '// See ../shared/DESIGN.md.',
          '// The hot path (DESIGN section 5).',
          '// Level rules (spec accounts section 6).',
          '/** Spec 9: colour bands. */',
          '// Priced as the reference says (reference 4.7).',
          '// Parsed leniently (STYLE 12).',
        ].join('\n'),
      ),
    ).toEqual([
      expect.stringMatching(/^1: "\.\.\/shared\/": a folder outside the repository/),
      expect.stringMatching(/^1: "DESIGN": /),
      '1: ../shared/DESIGN.md does not exist in the repository',
      expect.stringMatching(/^2: "DESIGN": /),
      expect.stringMatching(/^3: "spec accounts": /),
      expect.stringMatching(/^4: "Spec 9": /),
      expect.stringMatching(/^5: "reference 4": /),
      expect.stringMatching(/^6: "STYLE 1": /),
    ]);
  });

  it('checks paths, sections, rules, tests, style rules and complaints against what exists', () => {
    expect(
      problemsOf(
        'services/x/src/a.ts',
        [
          '// Fine: services/relay/src/relay-call.ts, routes/epay.ts, docs/architecture.md section 5.2, rule R7, tests D2 and D3,',
          '// style rules 9 to 13, complaint 12 (docs/compatibility.md section 7), web/dist (generated).',
          '// Broken: services/relay/src/gone.ts, docs/architecture.md section 42, rule R99, test Q7, style rule 99, complaint 99.',
        ].join('\n'),
      ),
    ).toEqual([
      '3: "docs/architecture.md section 42": docs/architecture.md has no section 42',
      '3: rule R99 is not in docs/security.md',
      '3: test Q7 is not in docs/security.md ("Hostile-input and fault tests")',
      '3: style rule 99 is not in CONTRIBUTING.md',
      '3: complaint 99 is not in docs/compatibility.md section 7',
      '3: services/relay/src/gone.ts does not exist in the repository',
    ]);
  });

  it('reads a numbered document\'s bare "section N" as its own, and skips Markdown code blocks for paths', () => {
    expect(sectionNumbers('# Title\n## 1. One\n### 1.2 Two\n## Appendix\n')).toEqual(new Set(['1', '1.2']));
    expect(
      problemsOf('docs/architecture.md', '## 1. Only\n\nAs section 1 says, and section 9 does not.\n\n```sh\nkubectl rollout status deploy/gateway\n```\n'),
    ).toEqual(['3: "section 9": docs/architecture.md has no section 9']);
  });
});
