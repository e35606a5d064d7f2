/**
 * Our wire types are readonly and the SDKs' are mutable; type drift tests compare the shapes, so they
 * strip `readonly` (deeply, arrays included) before asking whether ours fits theirs.
 */
export type Mutable<T> = T extends readonly (infer U)[] ? Mutable<U>[] : T extends object ? { -readonly [K in keyof T]: Mutable<T[K]> } : T;
