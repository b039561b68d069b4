import type { Kv, Logger } from '@aigw/platform';

/** Where an object an upstream stored for a user lives (a response of the Responses API). */
export interface StoredObject {
  channel_id: number;
  user_id: number;
}

/** OpenAI keeps stored responses 30 days. */
const OBJECT_TTL_MS = 30 * 86_400_000;
const prefix = 'relay:object:';

/**
 * The upstream objects the relay's answers created, by id: a later `GET /v1/responses/{id}` must
 * reach the channel (the upstream account) that stored it, and only its owner may ask. Kept in
 * the shared KV (Redis when distributed), written after the answer, off the request's path.
 */
export interface StoredObjects {
  remember(id: string, object: StoredObject): void;
  find(id: string): Promise<StoredObject | null>;
  forget(id: string): Promise<void>;
}

export function createStoredObjects(kv: Kv, logger: Logger): StoredObjects {
  const key = (id: string) => `${prefix}${id.slice(0, 256)}`;
  return {
    remember(id, object) {
      kv.set(key(id), JSON.stringify(object), { ttlMs: OBJECT_TTL_MS }).catch((error: unknown) =>
        logger.warn({ err: error, id }, 'stored object not remembered'),
      );
    },
    async find(id) {
      const value = await kv.get(key(id));
      return value ? (JSON.parse(value) as StoredObject) : null;
    },
    forget: (id) => kv.delete(key(id)),
  };
}
