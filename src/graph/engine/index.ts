export type {
  AccessDocument, BatchRequest, ChangeEvent, CommitResult, CommittedBatch, Direction, EdgeHit, EdgeRecord, EdgeTypeInfo,
  GraphCatalogue, GraphSummary, LabelInfo, Mutation, MutationInput, MutationOp, NodeRecord, Properties,
  PropertyType, PropertyValue, Scalar, ScalarType, ScanOptions, StoredAccess,
} from './types.ts';
export type { GraphView } from './graph-view.ts';
export { GraphEngine } from './graph-engine.ts';
export type { FollowStats, GraphEngineOptions, TransactBatch, TransactCommit } from './graph-engine.ts';
export { ChangeFeed } from './change-feed.ts';
export type { ChangeListener } from './change-feed.ts';
export { GRAPH_NAME_PATTERN, GRAPHQL_NAME_PATTERN, MAX_NODE_ID_LENGTH, RESERVED_LABELS, assertGraphName, assertGraphqlName, assertNodeId } from './names.ts';
export { DEFAULT_SCHEMA_CAPS, SCHEMA_CAP_SETTINGS } from './schema-caps.ts';
export type { SchemaCaps } from './schema-caps.ts';
export { compareIds, idSortKey } from './id-order.ts';
export { kindOf } from './property-values.ts';
export { mutationChanges, mutationJsonSize, numberJsonSize, propertiesJsonSize, propertyJsonSize } from './json-size.ts';
export { DEFAULT_WRITE_LIMITS, WRITE_SETTINGS, WriteMeter, writeTooLarge } from './write-limits.ts';
export type { WriteLimits } from './write-limits.ts';
export type { ValueKind } from './property-values.ts';
export type {
  GraphSnapshot, LoadedState, LogRecord, PersistenceAdapter, SnapshotChunk, SnapshotHeader, SnapshotStream,
} from './persistence-port.ts';
export { cloneRecordSteps, recordJsonSteps } from './record-slices.ts';
export { COMMIT_SLICE_MS, nextTurn, runSliced, runWhole } from './work-slices.ts';
export type { SlicedWork } from './work-slices.ts';
export { SNAPSHOT_EDGES_PER_CHUNK, SNAPSHOT_NODES_PER_CHUNK, readSnapshot, snapshotStream } from './snapshot-stream.ts';
