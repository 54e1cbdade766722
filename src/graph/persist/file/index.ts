export { FilePersistence, openFilePersistence } from './file-persistence.ts';
export type { FilePersistenceOptions } from './file-persistence.ts';
export { FRAME_HEADER_BYTES, encodeFrame, scanFrames } from './record-frame.ts';
