import type { operations } from '../../generated/openapi/types.ts';

/**
 * The JSON body `operation` (an operationId of specs/tool-server.openapi.yaml) answers with `status`,
 * as the document declares it (openapi-typescript's `operations`). Request bodies need no such type:
 * the generated validators narrow them.
 */
export type ResponseBody<O extends keyof operations, S extends keyof operations[O]['responses']> =
  operations[O]['responses'][S] extends { content: { 'application/json': infer Body } } ? Body : never;
