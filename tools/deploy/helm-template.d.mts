// Types of helm-template.mjs, for TypeScript callers (tests).

/** A parsed template: text, actions and blocks. */
export type TemplateNode =
  { text: string } | { pipeline: string } | { keyword: 'if' | 'range' | 'with'; expression: string; body: TemplateNode[]; otherwise: TemplateNode[] };
/** One action; groups: the left trim marker, the action's text, the right trim marker. */
export declare const ACTION: RegExp;
/** The nodes of a template; its `define`s go into `defines`. Throws on an unbalanced or unsupported block. */
export declare function parseTemplate(
  source: string,
  defines?: Record<string, TemplateNode[]>,
): { nodes: TemplateNode[]; defines: Record<string, TemplateNode[]> };
/** Renders parsed nodes with some data (the template's `.` and `$`); `include` finds `defines`. */
export declare function createRenderer(defines: Record<string, TemplateNode[]>): (nodes: TemplateNode[], data: unknown) => string;
