/**
 * A result that is already JSON text, written into the NativeResponse byte for byte, with no generic
 * canonicalisation pass: the Cypher executor writes its results as RFC 8785 canonical text, and the
 * GraphQl method answers the exact body `/graphql/{graph}` sends, so both surfaces return the same bytes.
 */
export class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }

  /** The parsed value (for callers that want objects rather than bytes). */
  value(): unknown {
    return JSON.parse(this.text);
  }
}
