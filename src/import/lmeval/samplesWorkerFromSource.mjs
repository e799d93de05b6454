// The samples reader's worker thread when lmaudit runs from its TypeScript sources (tests, a CLI
// without its bundle): tsx is registered on this thread, then the worker's own module is loaded.
import { register } from 'tsx/esm/api';

register();
await import('./samplesWorker.ts');
