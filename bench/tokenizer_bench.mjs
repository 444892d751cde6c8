// The @huggingface/tokenizers half of bench/bench_tokenizer.cpp, which runs it:
//
//   node bench/tokenizer_bench.mjs MODEL_DIR CORPUS.json PASSES
//
// Loads MODEL_DIR/tokenizer.json (+ tokenizer_config.json), encodes every string of the JSON
// array CORPUS.json once to warm up, then PASSES times, timing each pass, and prints one JSON
// line: {"load_s", "load_cpu_s", "pass_s": [...], "pass_cpu_s": [...], "bytes", "ids"}
// (bytes: UTF-8 bytes per pass; ids: tokens per pass, a checksum against the C++ side). The
// *_cpu_s figures are process CPU time, which a loaded machine does not inflate.
import fs from "node:fs";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const { Tokenizer } = await import(
  path.join(here, "../tests/npm/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs")
);

const [modelDir, corpusPath, passesArg] = process.argv.slice(2);
const passes = Number(passesArg ?? 3);
const inputs = JSON.parse(fs.readFileSync(corpusPath, "utf8"));

const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
const json = JSON.parse(fs.readFileSync(path.join(modelDir, "tokenizer.json"), "utf8"));
const configPath = path.join(modelDir, "tokenizer_config.json");
const config = fs.existsSync(configPath) ? JSON.parse(fs.readFileSync(configPath, "utf8")) : {};
const tokenizer = new Tokenizer(json, config);
const loadSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
const loadCpu = process.cpuUsage(cpu0);
const loadCpuSeconds = (loadCpu.user + loadCpu.system) / 1e6;

const bytes = inputs.reduce((n, s) => n + Buffer.byteLength(s, "utf8"), 0);
const encodeAll = () => {
  let ids = 0;
  for (const text of inputs) ids += tokenizer.encode(text).ids.length;
  return ids;
};
const ids = encodeAll();  // warm-up (JIT, caches)
const passSeconds = [];
const passCpuSeconds = [];
for (let p = 0; p < passes; ++p) {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  encodeAll();
  const used = process.cpuUsage(cpu);
  passSeconds.push(Number(process.hrtime.bigint() - start) / 1e9);
  passCpuSeconds.push((used.user + used.system) / 1e6);
}
console.log(
  JSON.stringify({
    load_s: loadSeconds,
    load_cpu_s: loadCpuSeconds,
    pass_s: passSeconds,
    pass_cpu_s: passCpuSeconds,
    bytes,
    ids,
  }),
);
