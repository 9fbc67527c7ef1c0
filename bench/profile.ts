/**
 * Summarises V8 CPU profiles of the server (written with BENCH_PROFILE=1 for the whole run, or
 * BENCH_PROFILE=phases for the timed phases only), summed: self time by package and the hottest
 * functions. Main thread only: argon2 runs on libuv threads.
 *
 *   node --conditions=source --import tsx bench/profile.ts bench/results/profiles/CPU.*.cpuprofile
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

const groupOf = (url: string, name: string): string => {
  if (!url) return name.startsWith('(') ? name : '(native)';
  const modules = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (modules) return modules[1] as string;
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[1] ?? url.slice(5)}`;
  const own = /packages\/([^/]+)\/src\/(.+)$/.exec(url);
  if (own) return `tessera ${own[1]}/${own[2]}`;
  return url;
};

/** Self time by package and by function of one or more profiles (the phases of one run), summed. */
function summarise(files: string[]) {
  let totalMs = 0;
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    const selfMs = new Map<number, number>();
    for (let i = 0; i < profile.samples.length; i++) {
      const id = profile.samples[i] as number;
      selfMs.set(id, (selfMs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
    }
    totalMs += (profile.endTime - profile.startTime) / 1000;
    for (const [id, ms] of selfMs) {
      const node = byId.get(id);
      if (!node) continue;
      const { functionName, url, lineNumber } = node.callFrame;
      const group = groupOf(url, functionName);
      groups.set(group, (groups.get(group) ?? 0) + ms);
      const label = `${functionName || '(anonymous)'}  ${group}${url ? `:${lineNumber + 1}` : ''}`;
      functions.set(label, (functions.get(label) ?? 0) + ms);
    }
  }
  const busyMs = [...groups.entries()].filter(([g]) => g !== '(idle)').reduce((a, [, ms]) => a + ms, 0);
  const table = (entries: Map<string, number>, limit: number) =>
    [...entries.entries()]
      .filter(([name]) => !name.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(
        ([name, ms]) =>
          `  ${((ms / busyMs) * 100).toFixed(1).padStart(5)} %  ${ms.toFixed(0).padStart(7)} ms  ${name}`,
      )
      .join('\n');
  console.log(
    `${files.join(', ')}\n  ${(totalMs / 1000).toFixed(1)} s profiled, main thread busy ${(busyMs / 1000).toFixed(1)} s`,
  );
  console.log(`self time by package:\n${table(groups, 20)}`);
  console.log(`hottest functions:\n${table(functions, 30)}`);
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node --conditions=source --import tsx bench/profile.ts <file.cpuprofile>...');
  process.exit(2);
}
summarise(files);
