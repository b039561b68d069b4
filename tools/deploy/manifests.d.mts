// Types of manifests.mjs, for TypeScript callers (tests).

/** A Kubernetes object as parsed from YAML: the typed models of kubernetes-models describe the rest. */
export interface KubernetesObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: any;
}
/** Absolute path of the repository. */
export declare const root: string;
/** The YAML version kubectl and Helm read (1.1: a bare `off` is a boolean). */
export declare const yamlOptions: { version: '1.1' };
/** Every .yaml and .yml file under `directory` (absolute, sorted), less the folders in `except`. */
export declare function yamlFiles(directory: string, except?: string[]): string[];
/** The documents of a YAML file (empty ones dropped); throws on a syntax error. */
export declare function yamlDocuments(file: string): any[];
/** What does not fit together in one set of objects; `secrets`: keys of Secrets made outside them. */
export declare function objectProblems(objects: KubernetesObject[], options?: { secrets?: Record<string, string[]> }): string[];
