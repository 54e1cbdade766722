export type {
  BatchRequest, ChangeEvent, CommitResult, CommittedBatch, Direction, EdgeHit, EdgeRecord, EdgeTypeInfo,
  GraphCatalogue, GraphSummary, LabelInfo, Mutation, MutationInput, MutationOp, NodeRecord, Properties,
  PropertyType, PropertyValue, Scalar, ScalarType, ScanOptions,
} from './types.ts';
export type { GraphView } from './graph-view.ts';
