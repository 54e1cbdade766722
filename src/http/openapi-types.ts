import type { components, operations } from '../../generated/openapi/types.ts';

/** The schemas of specs/tool-server.openapi.yaml, as openapi-typescript generates them. */
export type ApiSchemas = components['schemas'];

/** The operations of the document by operationId. */
export type ApiOperation = keyof operations;

/** The JSON body `operation` answers with `status`, as the document declares it. */
export type ResponseBody<O extends ApiOperation, S extends keyof operations[O]['responses']> =
  operations[O]['responses'][S] extends { content: { 'application/json': infer Body } } ? Body : never;

/** The JSON body `operation` takes, as the document declares it. */
export type RequestBody<O extends ApiOperation> =
  operations[O] extends { requestBody: { content: { 'application/json': infer Body } } } ? Body : never;
