/**
 * Counts carrier connections (handshakes in flight and open SSE sessions) against the configured
 * maximum. One gate serves the whole listener, and a process runs one listener, so the count is
 * process-wide.
 */
export class ConnectionGate {
  readonly max: number;
  #active = 0;

  constructor(max: number) {
    this.max = max;
  }

  get active(): number {
    return this.#active;
  }

  /** Takes a slot, or answers false at once when every slot is taken. */
  tryAcquire(): boolean {
    if (this.#active >= this.max) return false;
    this.#active++;
    return true;
  }

  release(): void {
    if (this.#active > 0) this.#active--;
  }
}
