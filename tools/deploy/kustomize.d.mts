// Types of kustomize.mjs, for TypeScript callers (tests).
import type { KubernetesObject } from './manifests.mjs';

/** `target` with a strategic merge patch applied (lists with a Kubernetes merge key merge by it). */
export declare function strategicMerge<T>(target: T, patch: unknown, field?: string): T;
/** `target` with JSON patch operations applied (add, replace, remove). */
export declare function jsonPatch<T>(target: T, operations: Array<{ op: string; path: string; value?: unknown }>): T;
/** Resource, patch and generator files a kustomization names that do not exist. */
export declare function kustomizationProblems(directory: string): string[];
/** The objects `kustomize build <directory>` prints, for the subset of fields kustomize.mjs renders. */
export declare function build(directory: string): KubernetesObject[];
