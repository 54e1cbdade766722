export type {
  AccessDocument, BatchRequest, ChangeEvent, CommitResult, CommittedBatch, Direction, EdgeHit, EdgeRecord,
  GraphCatalogue, GraphSummary, LabelInfo, Mutation, MutationInput, NodeRecord, Properties,
  PropertyType, PropertyValue, Scalar, ScanOptions, StoredAccess,
} from './types.ts';
export type { GraphView } from './graph-view.ts';
export { GraphEngine } from './graph-engine.ts';
export type { GraphEngineOptions, TransactCommit } from './graph-engine.ts';
export { GRAPH_NAME_PATTERN, assertGraphName, assertGraphqlName, assertNodeId } from './names.ts';
export { DEFAULT_SCHEMA_CAPS } from './schema-caps.ts';
export type { SchemaCaps } from './schema-caps.ts';
export { compareIds, idSortKey } from './id-order.ts';
export { kindOf } from './property-values.ts';
export { mutationChanges, mutationJsonSize, numberJsonSize, propertiesJsonSize } from './json-size.ts';
export { DEFAULT_WRITE_LIMITS, WriteMeter } from './write-limits.ts';
export type { WriteLimits } from './write-limits.ts';
export type {
  GraphSnapshot, LoadedState, LogRecord, PersistenceAdapter, SnapshotChunk, SnapshotHeader, SnapshotStream,
} from './persistence-port.ts';
export { cloneRecordSteps, recordJsonSteps } from './record-slices.ts';
export { COMMIT_SLICE_MS, runSliced } from './work-slices.ts';
export type { SlicedWork } from './work-slices.ts';
export { SNAPSHOT_EDGES_PER_CHUNK, SNAPSHOT_NODES_PER_CHUNK, readSnapshot, snapshotStream } from './snapshot-stream.ts';
