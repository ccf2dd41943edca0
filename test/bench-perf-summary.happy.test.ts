// The bench's perf summary (bench/perf-summary.ts): how `perf script` output is read, and where
// each sample's CPU is counted.
import { describe, expect, it } from 'vitest';
import {
  GC_AREA,
  KERNEL_AREA,
  NATIVE_AREA,
  areaOfJsFrame,
  areaOfSample,
  parsePerfScript,
  samplesOfThread,
  summarizePerf,
} from '../bench/perf-summary.ts';

const SCRIPT = `4242 
\t         14c614e Builtins_KeyedLoadIC_Megamorphic (/usr/bin/node)
\t    7f00000a0001 JS:*checkReport file:///srv/app/src/progress/service.ts:1:495 (/tmp/perf-4242.map)
\t    7f00000a0002 JS:*handler file:///srv/app/node_modules/fastify/lib/route.js:10:2 (/tmp/perf-4242.map)

4242 
\t    7f00000a0003 JS:*arrayString /srv/app/node_modules/pg/lib/utils.js:23:21 (/tmp/perf-4242.map)

4243 
\t         c494db v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot> (/usr/bin/node)
\t    7f00000a0004 JS:*parse file:///srv/app/node_modules/secure-json-parse/index.js:17:1 (/tmp/perf-4242.map)

4242 
\t ffffffff8100 _raw_spin_unlock_irqrestore ([kernel.kallsyms])
\t ffffffff8200 __x64_sys_writev ([kernel.kallsyms])

4242 
\t          8d85d8 node::(anonymous namespace)::Parser::Proxy<int (node::(anonymous namespace)::Parser::*)(), &node::Parser::on_body>::Raw (/usr/bin/node)
\t         1b04aed llhttp__internal_execute (/usr/bin/node)

4242 
\t    7f00000a0005 JS:*parserOnIncoming node:_http_server:1026:26 (/tmp/perf-4242.map)

  977 
\t    7f00000a0006 JS:*find /srv/app/node_modules/find-my-way/index.js:618:39 (/tmp/perf-977.map)
`;

describe('parsePerfScript', () => {
  it('reads each sample with its thread and its frames, leaf first, symbols with parentheses whole', () => {
    const samples = parsePerfScript(SCRIPT);
    expect(samples).toHaveLength(7);
    expect(samples[0]?.tid).toBe(4242);
    expect(samples[2]?.tid).toBe(4243);
    // perf pads a short thread id to its column: the header still counts
    expect(samples[6]?.tid).toBe(977);
    expect(samples[0]?.frames.map((f) => f.dso)).toEqual([
      '/usr/bin/node',
      '/tmp/perf-4242.map',
      '/tmp/perf-4242.map',
    ]);
    expect(samples[4]?.frames[0]?.symbol).toBe(
      'node::(anonymous namespace)::Parser::Proxy<int (node::(anonymous namespace)::Parser::*)(), &node::Parser::on_body>::Raw',
    );
  });
});

describe('where a sample is counted', () => {
  it('names the area of a JavaScript frame by its file, and nothing for other frames', () => {
    expect(areaOfJsFrame('JS:*checkReport file:///srv/app/src/progress/service.ts:1:495')).toBe(
      'src/progress',
    );
    expect(areaOfJsFrame('JS:~handler /srv/app/node_modules/@fastify/otel/index.js:3:1')).toBe(
      '@fastify/otel',
    );
    expect(areaOfJsFrame('JS:*parserOnIncoming node:_http_server:1026:26')).toBe('node:_http_server');
    expect(areaOfJsFrame('JS:* :1:20')).toBeUndefined();
    expect(areaOfJsFrame('Builtins_LoadIC')).toBeUndefined();
  });

  it('counts builtins to their JavaScript caller, the collector as itself, and the rest as kernel or native', () => {
    const areas = parsePerfScript(SCRIPT).map(areaOfSample);
    expect(areas).toEqual([
      'src/progress',
      'pg',
      GC_AREA,
      KERNEL_AREA,
      NATIVE_AREA,
      'node:_http_server',
      'find-my-way',
    ]);
  });
});

describe('summarizePerf', () => {
  it('gives each area its share and, with the CPU a request, its microseconds', () => {
    const text = summarizePerf(parsePerfScript(SCRIPT), 140);
    expect(text).toContain('7 samples of CPU (all threads), 140 µs of CPU a request');
    // one sample in seven of 140 µs is 20 µs
    expect(text).toMatch(/14\.3%\s+20\.0 µs {2}src\/progress {2}\[Builtins_KeyedLoadIC_Megamorphic\]/);
    expect(text).toMatch(/14\.3%\s+20\.0 µs {2}\(garbage collector\)/);
  });

  it("counts one thread's samples alone when asked (BENCH_PROFILE_MAIN_THREAD)", () => {
    const main = samplesOfThread(parsePerfScript(SCRIPT), 4242);
    // 4243 (a helper thread, the garbage collector's sample) and 977 are not the main thread
    expect(main).toHaveLength(5);
    const text = summarizePerf(main, 100, 30, 'the main thread');
    expect(text).toContain('5 samples of CPU (the main thread), 100 µs of CPU a request');
    expect(text).not.toContain(GC_AREA);
    expect(text).not.toContain('find-my-way');
    // one sample in five of 100 µs is 20 µs
    expect(text).toMatch(/20\.0%\s+20\.0 µs {2}pg {2}\[/);
  });
});
