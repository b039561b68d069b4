// Types of messages.mjs, for TypeScript callers (tests).

export interface MessageProblem {
  file: string;
  line: number;
  message: string;
}
/** Every sentence written in place in one file. */
export declare function sentencesIn(file: string, text: string): MessageProblem[];
/** Every sentence written in place in the code behind console routes. */
export declare function messageProblems(): MessageProblem[];
