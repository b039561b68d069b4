/**
 * A locale module: message id -> text. en-US modules are typed against their zh-CN twin
 * (`satisfies MessagesOf<typeof zh>`), so a missing or extra key fails the type check; a jest
 * test checks the same at run time, and that every id used in the code exists.
 */
export type Messages = Record<string, string>;
export type MessagesOf<T extends Messages> = { [K in keyof T]: string };
