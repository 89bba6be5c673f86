import { parentPort } from 'node:worker_threads';
import { inspectFile } from '../domain/file-inspection.js';

/** The body of an inspection thread (documents/inspection.ts): one file's bytes in, its inspection out. */
parentPort?.once('message', async (bytes: Uint8Array) => {
  parentPort?.postMessage(await inspectFile(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length)));
});
