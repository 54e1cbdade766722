export { FilePersistence } from './file-persistence.ts';
export { FRAME_HEADER_BYTES, encodeFrame, scanFrames } from './record-frame.ts';
export { nodeLogFileSystem } from './log-file-system.ts';
export type { LogFileHandle, LogFileSystem } from './log-file-system.ts';
