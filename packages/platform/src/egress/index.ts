export { classifyAddress, type BlockedRange } from './address-policy.js';
export { EgressBlockedError, EgressError, toEgressError, type EgressBlockReason, type EgressFailure } from './egress-errors.js';
export {
  ALLOW_PRIVATE_NETWORK_OPTION,
  createEgressClient,
  type EgressClient,
  type EgressClientOptions,
  type EgressJsonResponse,
  type EgressRequestInit,
  type EgressResponse,
  type EgressWholeResponse,
  type HostPolicy,
  type ResolvedAddress,
  resolveEgressHost,
} from './egress-client.js';
