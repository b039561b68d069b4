// Types of events.mjs, for TypeScript callers (tests).

/** Absolute path of packages/contracts/src/events.ts. */
export declare const eventsSource: string;
/** Absolute path of docs/events.md. */
export declare const documentPath: string;
/** The doc comment of every key of `eventSchemas`, one paragraph each ('' when a key has none). */
export declare function eventDocComments(source?: string): Record<string, string>;
/** docs/events.md as it should be. */
export declare function renderEventCatalogue(): string;
