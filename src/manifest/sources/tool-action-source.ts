import { canonicalJson } from '../canonical-json.ts';
import type { JsonSchema, SchemaSource } from '../schema-source.ts';
import { sha256Hex } from '../../digest/index.ts';

/** One action of an MCP tool as the tool registry describes it. */
export interface ToolAction {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  readonly outputSchema: JsonSchema;
}

/**
 * The tool server's actions as a catalogue source. The registry has no document of its own, so the
 * source digest is of the JCS serialisation of the action list, ordered by name.
 */
export function toolActionSource(name: string, actions: readonly ToolAction[]): SchemaSource {
  const ordered = [...actions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const document = ordered.map((a) => ({ name: a.name, description: a.description, inputSchema: a.inputSchema, outputSchema: a.outputSchema }));
  return {
    name,
    sourceSha256: sha256Hex(canonicalJson(document)),
    operations: ordered.map((a) => ({ operation: a.name, description: a.description, input: a.inputSchema, output: a.outputSchema })),
  };
}
