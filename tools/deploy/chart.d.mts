// Types of chart.mjs, for TypeScript callers (tests).
import type { KubernetesObject } from './manifests.mjs';

/** Absolute path of deploy/helm/aigw. */
export declare const chartDirectory: string;
/** `values` with `overrides` laid over them as Helm does: maps merge, null deletes a key. */
export declare function coalesce(values: Record<string, unknown>, overrides: Record<string, unknown>): Record<string, unknown>;
/** The chart's template files, relative to the chart. */
export declare function templateFiles(directory?: string): string[];
export interface RenderOptions {
  /** Value files relative to the chart, laid over values.yaml in order. */
  valueFiles?: string[];
  /** Laid over those last, as --set would. */
  values?: Record<string, unknown>;
  release?: { Name: string; Namespace: string };
  directory?: string;
}
/** The chart rendered as `helm template` would: each template file's text, and NOTES.txt's. */
export declare function renderChart(options?: RenderOptions): { manifests: Record<string, string>; notes: string };
/** The objects of a rendering (empty documents dropped); throws on YAML a template rendered wrong. */
export declare function renderedObjects(rendering: { manifests: Record<string, string> }): KubernetesObject[];
/** The action texts of a template, in order. */
export declare function templateActions(text: string): string[];
/** Unbalanced blocks, .Values paths values.yaml lacks, includes of undefined templates. */
export declare function templateProblems(files: Record<string, string>, values: Record<string, unknown>): string[];
