// Preloaded (`node --require`) into the CLI by the test that proves a dying audit worker does
// not fail the audit: the first worker thread exits on its first message, as a crash would.
// Worker threads inherit the preload, so production code needs no switch for it.
import { isMainThread, parentPort, threadId } from 'node:worker_threads';

if (!isMainThread && threadId === 1) parentPort?.once('message', () => process.exit(3));
