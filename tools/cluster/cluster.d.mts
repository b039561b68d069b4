// Types of cluster.mjs, for TypeScript callers (the end-to-end test).
export type ServiceName = 'identity' | 'billing' | 'channels' | 'relay' | 'notifier';
export type ProcessName = ServiceName | 'gateway';

export declare const serviceNames: readonly ServiceName[];
export declare const defaultPorts: Readonly<Record<ProcessName, number>>;

/** A replica's name in logs and crash reports. */
export type ReplicaLabel = `${ServiceName}@${number}`;

/** One more instance of a service, from `startReplica`. */
export interface Replica {
  name: ServiceName;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  pid: number;
  /** Kills it (default SIGKILL: a crash, nothing drained); the others keep running. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** SIGTERM, SIGKILL after stopTimeoutMs; resolves once it exited. */
  stop(): Promise<void>;
}

export interface StartClusterOptions {
  /** The children's environment; default process.env. `<NAME>_NATS_PASSWORD` makes that process connect to NATS as its own user. */
  env?: Record<string, string | undefined>;
  /** Listen ports; defaults 3000 (gateway) to 3005. */
  ports?: Partial<Record<ProcessName, number>>;
  /** Every output line of every child (a replica's as `<service>@<port>`), and the launcher's own as 'cluster'. */
  log?: (name: ProcessName | ReplicaLabel | 'cluster', line: string, stream?: 'stdout' | 'stderr') => void;
  /** After startup, a child (or a started replica) exited on its own; called once the others are stopped. */
  onCrash?: (crash: { name: ProcessName | ReplicaLabel; code: number | null; signal: NodeJS.Signals | null }) => void;
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
  /**
   * Starts one more instance of a service on `port` with the service's env plus `extraEnv`
   * (INSTANCE_NAME `<name>@<port>` unless given), and waits for its /healthz. The gateway keeps
   * proxying to the first instance; `stop()` stops replicas with the services.
   */
  startReplica(name: ServiceName, port: number, extraEnv?: Record<string, string>): Promise<Replica>;
}

export declare function entryOf(name: ProcessName): string;
export declare function startCluster(options?: StartClusterOptions): Promise<Cluster>;
