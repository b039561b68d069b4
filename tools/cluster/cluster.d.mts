// Types of cluster.mjs, for TypeScript callers (the end-to-end test).
export type ServiceName = 'identity' | 'billing' | 'channels' | 'relay' | 'notifier';
export type ProcessName = ServiceName | 'gateway';

export declare const serviceNames: readonly ServiceName[];
export declare const defaultPorts: Readonly<Record<ProcessName, number>>;

export interface StartClusterOptions {
  /** The children's environment; default process.env. */
  env?: Record<string, string | undefined>;
  /** Listen ports; defaults 3000 (gateway) to 3005. */
  ports?: Partial<Record<ProcessName, number>>;
  /** Every output line of every child (and the launcher's own, as 'cluster'). */
  log?: (name: ProcessName | 'cluster', line: string, stream?: 'stdout' | 'stderr') => void;
  /** After startup, a child exited on its own; called once the others are stopped. */
  onCrash?: (crash: { name: ProcessName; code: number | null; signal: NodeJS.Signals | null }) => void;
  readyTimeoutMs?: number;
  stopTimeoutMs?: number;
}

export interface Cluster {
  gatewayUrl: string;
  servicesUrls: Record<ServiceName, string>;
  /** The INTERNAL_SECRET the children share (generated when the env has none). */
  internalSecret: string;
  /** Stops the gateway, then the services; resolves once all exited. Idempotent. */
  stop(): Promise<void>;
  /** Kills one process (default SIGKILL: a crash, nothing drained); the others keep running. Fault tests. */
  kill(name: ProcessName, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a killed process again on its port with its env (plus `extraEnv`), and waits for its /healthz. */
  restart(name: ProcessName, extraEnv?: Record<string, string>): Promise<void>;
}

export declare function entryOf(name: ProcessName): string;
export declare function startCluster(options?: StartClusterOptions): Promise<Cluster>;
