import crypto from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import {
  auditRecordSchema,
  auditSubjects,
  changedAuditValues,
  maskAuditValues,
  type AuditAction,
  type AuditActor,
  type AuditRecord,
  type AuditService,
  type AuditTarget,
  type AuditValues,
} from '@aigw/contracts';
import { requireAuth } from './auth.js';
import type { Bus } from './bus/bus.js';
import { publishEvent } from './messaging.js';

/**
 * The audit trail's one way in (issue 22, item 13): a service builds the record of an admin
 * action from the request (who, from where) and what changed, and publishes it on its
 * `<service>.audit.recorded` subject after its change committed. Identity stores the records.
 */

/** Who acted and from where: what every record of one request shares. */
export interface AuditSource {
  actor: AuditActor;
  ip: string;
}

/** What one record says happened. */
export interface AuditEntry {
  action: AuditAction;
  target: AuditTarget;
  /** The target's fields before the change; null or absent when it is new (or nothing changed, e.g. a reveal). */
  before?: AuditValues | null;
  /** The target's fields after the change; null or absent when it is gone. */
  after?: AuditValues | null;
}

/**
 * The client's IP. All-in-one, that is the request's own IP (TRUST_PROXY decides whether a proxy's
 * X-Forwarded-For counts). Between processes a request the gateway forwarded comes from the
 * gateway's address; the gateway signs the client's IP into the identity headers (auth.ts), for
 * anonymous callers and API keys too, and createApp keeps it once the signature verified. A
 * request that came straight from the ingress (the relay's own paths in deploy/k8s) has none:
 * its IP is the connection's, or X-Forwarded-For's under the service's TRUST_PROXY.
 */
export function clientIpOf(request: FastifyRequest): string {
  return request.signedIp ?? request.ip;
}

/** The source of an authenticated console request's records. */
export function auditSourceOf(request: FastifyRequest): AuditSource {
  const auth = requireAuth(request);
  return { actor: { user_id: auth.userId, username: auth.username, role: auth.role }, ip: clientIpOf(request) };
}

/**
 * The record of `entry`, or null when it is an edit that changed nothing. An edit (both sides
 * given) keeps only the fields that changed; every secret field of the target type is masked
 * (contracts' `auditSecretFields`).
 */
export function buildAuditRecord(service: AuditService, source: AuditSource, entry: AuditEntry, now = Date.now()): AuditRecord | null {
  let before = entry.before ?? null;
  let after = entry.after ?? null;
  if (before && after) {
    ({ before, after } = changedAuditValues(before, after));
    if (Object.keys(after).length === 0) return null;
  }
  return auditRecordSchema.parse({
    id: crypto.randomUUID(),
    time: now,
    service,
    actor: source.actor,
    action: entry.action,
    target: { ...entry.target, label: entry.target.label.slice(0, 255) },
    before: maskAuditValues(entry.target.type, before),
    after: maskAuditValues(entry.target.type, after),
    ip: source.ip.slice(0, 64),
  });
}

/** Builds and publishes the records of one source (after the change committed); returns what was published. */
export async function publishAudit(bus: Bus, service: AuditService, source: AuditSource, ...entries: AuditEntry[]): Promise<AuditRecord[]> {
  const published: AuditRecord[] = [];
  for (const entry of entries) {
    const record = buildAuditRecord(service, source, entry);
    if (!record) continue;
    await publishEvent(bus, auditSubjects[service], record, record.id);
    published.push(record);
  }
  return published;
}

/** A route's one line: the records of `entries`, done by the request's caller. */
export function recordAudit(request: FastifyRequest, bus: Bus, service: AuditService, ...entries: AuditEntry[]): Promise<AuditRecord[]> {
  return publishAudit(bus, service, auditSourceOf(request), ...entries);
}
