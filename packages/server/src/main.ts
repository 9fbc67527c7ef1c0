/**
 * The server's entry point. It checks the Node.js version before anything else is loaded, so that
 * an unsupported Node gets one clear line instead of whatever error the first newer feature
 * would throw.
 */
import module from 'node:module';
import { nodeVersionProblem, supportedNodeRange } from './node-version.ts';

const problem = nodeVersionProblem(process.versions.node, supportedNodeRange());
if (problem) {
  console.error(`Tessera cannot start: ${problem}`);
  process.exit(1);
}

// From Node 22.1 on, the code compiled while loading the server is kept on disk (in the temporary
// folder) for the next start, which then loads faster; NODE_DISABLE_COMPILE_CACHE=1 turns it off.
// Older Node has no such cache.
(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();

const { main } = await import('./start.ts');
main().catch((error) => {
  console.error('Tessera failed to start:', error instanceof Error ? error.message : error);
  process.exit(1);
});
