import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

// A child that grows its young generation, runs one full GC (which arms V8's memory reducer), then
// allocates nothing in JavaScript; with `nudge`, src/main/memory-reducer.ts runs in it.
const CHILD = `
  const keep = [];
  for (let i = 0; i < 2e6; i++) { const o = { a: i, b: 'x' + i }; if (i % 1000 === 0) keep.push(o); }
  globalThis.gc();
  if (process.env.NUDGE === '1') (await import('./src/main/memory-reducer.ts')).keepMemoryReducerAwake();
  setInterval(() => {}, 1000);
`;

/** Runs the child until the memory reducer reports a GC or `ms` pass; returns its trace. */
function reducerTrace(nudge: boolean, ms: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--expose-gc', '--trace-memory-reducer', '--input-type=module', '-e', CHILD], {
      env: { ...process.env, NUDGE: nudge ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const done = () => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      resolve(out);
    };
    const timer = setTimeout(done, ms);
    child.stdout.on('data', (b) => {
      out += String(b);
      if (/Memory reducer: finished GC/.test(out)) done();
    });
    child.stderr.on('data', (b) => (out += String(b)));
    child.once('error', reject);
  });
}

describe('keepMemoryReducerAwake (docs/benchmarks.md, sixth session)', () => {
  it('lets V8 run a memory-reducing GC in a process whose JavaScript is idle; without it V8 rates the idle process "high alloc"', async () => {
    const [without, withNudge] = await Promise.all([reducerTrace(false, 20_000), reducerTrace(true, 45_000)]);
    expect(withNudge).toMatch(/Memory reducer: started GC #1/);
    expect(withNudge).toMatch(/Memory reducer: finished GC/);
    // The V8 behaviour the nudge works around (Node 24.21): the idle process is never reduced.
    expect(without).toMatch(/Memory reducer: high alloc/);
    expect(without).not.toMatch(/Memory reducer: started GC/);
  }, 60_000);
});
