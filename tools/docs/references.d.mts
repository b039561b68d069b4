// Types of references.mjs, for TypeScript callers (tests).

/** Absolute path of the repository. */
export declare const root: string;
export interface Source {
  /** Path relative to the repository's root. */
  file: string;
  text: string;
}
export interface ReferenceProblem {
  file: string;
  line: number;
  message: string;
}
/** Files of the repository: tracked, and new ones git does not ignore (recorded fixtures and the lockfile left out). */
export declare function repositoryFiles(): string[];
/** Every file of the repository with its text. */
export declare function repositorySources(): Source[];
/** The comments of a source file, each with the line it starts on. */
export declare function sourceComments(file: string, text: string): Array<{ line: number; text: string }>;
/** The pieces of a file that may hold references: comments, or a whole document. */
export declare function referenceTexts(file: string, text: string): Array<{ line: number; text: string }>;
/** Section numbers of a document's numbered headings. */
export declare function sectionNumbers(text: string): Set<string>;
/** Every broken reference in `sources` (default: the whole repository). */
export declare function referenceProblems(sources?: Source[]): ReferenceProblem[];
/** Disagreements between .nvmrc and the workspaces' `engines.node`. */
export declare function engineProblems(): string[];
