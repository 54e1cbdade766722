import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import type { SchemaManifest } from '../../src/manifest/index.ts';

/** The catalogue benchmark's server in a child process: where it listens and the manifest it serves. */
export interface CatalogueServerProcess {
  /** Ending its stdin stops the server. */
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  readonly origin: string;
  readonly manifest: SchemaManifest;
}

/**
 * Starts `catalogue.ts --serve` (the catalogue and fragment server of the catalogue benchmark) in a
 * child process, so client and server each have a core, and waits for the line it prints once
 * listening: `{origin, manifest}`.
 */
export async function startCatalogueServer(): Promise<CatalogueServerProcess> {
  const child = spawn(process.execPath, [join(import.meta.dirname, 'catalogue.ts'), '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const line = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      if (buffered.includes('\n')) resolve(buffered.slice(0, buffered.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const { origin, manifest } = JSON.parse(line) as { origin: string; manifest: SchemaManifest };
  return { child, origin, manifest };
}
