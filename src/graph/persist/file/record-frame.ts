import { crc32 } from 'node:zlib';

/**
 * One framed record: `length u32le | crc32(payload) u32le | crc32(first 8 bytes) u32le | payload`.
 * The header has its own checksum so a damaged length is caught before it is trusted (a bad length
 * could otherwise swallow valid records after it and pass for a torn tail).
 */
export const FRAME_HEADER_BYTES = 12;
/** Far above any record we write; a header claiming more is damage, not data. */
export const MAX_FRAME_PAYLOAD = 0x7fff_0000;

export function encodeFrame(payload: Buffer): Buffer {
  const frame = Buffer.allocUnsafe(FRAME_HEADER_BYTES + payload.length);
  frame.writeUInt32LE(payload.length, 0);
  frame.writeUInt32LE(crc32(payload), 4);
  frame.writeUInt32LE(crc32(frame.subarray(0, 8)), 8);
  payload.copy(frame, FRAME_HEADER_BYTES);
  return frame;
}

export type FrameDamage = 'incomplete header' | 'bad header checksum' | 'incomplete record' | 'bad record checksum';

/** Checks the frame at `offset`: its payload end when whole and valid, else what is wrong with it. */
export function checkFrame(buf: Buffer, offset: number): { end: number } | { damage: FrameDamage } {
  if (buf.length - offset < FRAME_HEADER_BYTES) return { damage: 'incomplete header' };
  if (crc32(buf.subarray(offset, offset + 8)) !== buf.readUInt32LE(offset + 8)) return { damage: 'bad header checksum' };
  const length = buf.readUInt32LE(offset);
  // We never write an empty payload; refusing one keeps a stray 12-byte pattern from passing as a frame.
  if (length === 0 || length > MAX_FRAME_PAYLOAD) return { damage: 'bad header checksum' };
  const end = offset + FRAME_HEADER_BYTES + length;
  if (end > buf.length) return { damage: 'incomplete record' };
  if (crc32(buf.subarray(offset + FRAME_HEADER_BYTES, end)) !== buf.readUInt32LE(offset + 4)) return { damage: 'bad record checksum' };
  return { end };
}

export interface FrameScan {
  /** Payloads of the valid frames before the first damage, in order. */
  readonly payloads: Buffer[];
  /** Where the valid prefix ends (the file length when nothing is damaged). */
  readonly validEnd: number;
  readonly damage: FrameDamage | undefined;
  /** The offset of a valid frame somewhere after the damage, when one exists. */
  readonly validAfter: number | undefined;
}

/** Reads frames from the start of `buf` until the end or the first damaged frame. */
export function scanFrames(buf: Buffer): FrameScan {
  const payloads: Buffer[] = [];
  let offset = 0;
  while (offset < buf.length) {
    const checked = checkFrame(buf, offset);
    if ('damage' in checked) {
      return { payloads, validEnd: offset, damage: checked.damage, validAfter: findValidFrame(buf, offset + 1) };
    }
    payloads.push(buf.subarray(offset + FRAME_HEADER_BYTES, checked.end));
    offset = checked.end;
  }
  return { payloads, validEnd: offset, damage: undefined, validAfter: undefined };
}

/**
 * Looks for any whole valid frame at or after `from`, at every byte offset. Only run after damage;
 * a header checksum match is checked first, so the scan is cheap.
 */
export function findValidFrame(buf: Buffer, from: number): number | undefined {
  for (let offset = from; offset + FRAME_HEADER_BYTES <= buf.length; offset++) {
    if ('end' in checkFrame(buf, offset)) return offset;
  }
  return undefined;
}
