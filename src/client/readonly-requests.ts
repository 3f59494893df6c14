/**
 * @module client/readonly-requests
 * Request bodies as readonly types, so fixtures written `as const` or typed with readonly arrays
 * are accepted: openapi-typescript generates mutable arrays, and a readonly array is not
 * assignable to a mutable one (TS2322). Only request bodies change. openapi-typescript's own
 * `immutable: true` made every type readonly, responses included, which broke openapi-fetch's
 * response types in the example app; a response is the caller's to keep and change.
 */

/** `T` with every array and property readonly, all the way down. */
export type DeepReadonly<T> = T extends readonly (infer Item)[]
  ? readonly DeepReadonly<Item>[]
  : T extends object
    ? { readonly [Key in keyof T]: DeepReadonly<T[Key]> }
    : T;

/** An operation whose request body's media types are deep-readonly; parameters and responses as they are. */
type WithReadonlyBody<Operation> = {
  [Key in keyof Operation]: Key extends 'requestBody' ? ReadonlyBody<Operation[Key]> : Operation[Key];
};

type ReadonlyBody<Body> = {
  [Key in keyof Body]: Key extends 'content' ? { [Media in keyof Body[Key]]: DeepReadonly<Body[Key][Media]> } : Body[Key];
};

type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/**
 * A generated `paths` interface with readonly request bodies. The mapped types are homomorphic,
 * so optional keys (`requestBody?: never`, `put?: never`) stay optional and openapi-fetch finds
 * the same paths, methods and responses.
 */
export type ReadonlyRequestBodies<Paths> = {
  [Path in keyof Paths]: {
    [Method in keyof Paths[Path]]: Method extends HttpMethod ? WithReadonlyBody<Paths[Path][Method]> : Paths[Path][Method];
  };
};
