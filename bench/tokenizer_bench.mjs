// The reference half of bench/bench_tokenizer.cpp, which runs it:
//
//   node bench/tokenizer_bench.mjs MODEL_DIR CORPUS.json PASSES [js|rust]
//
// js: @huggingface/tokenizers (the JavaScript port), one encode() per string.
// rust: the npm package `tokenizers` (Hugging Face's Rust library, prebuilt as a Node
// addon), encodeBatch() over chunks of 256 strings (its fast path: one call into Rust per
// chunk instead of a Promise per string), with TOKENIZERS_PARALLELISM=false so that it
// encodes on one thread like the other two.
//
// Loads MODEL_DIR/tokenizer.json (+ tokenizer_config.json), encodes every string of the JSON
// array CORPUS.json once to warm up, then PASSES times, timing each pass, and prints one JSON
// line: {"load_s", "load_cpu_s", "pass_s": [...], "pass_cpu_s": [...], "bytes", "ids"}
// (bytes: UTF-8 bytes per pass; ids: tokens per pass, a checksum against the C++ side). The
// *_cpu_s figures are process CPU time, which a loaded machine does not inflate.
import fs from "node:fs";
import path from "node:path";

const here = path.dirname(new URL(import.meta.url).pathname);
const modules = path.join(here, "../tests/npm/node_modules");

const [modelDir, corpusPath, passesArg, reference = "js"] = process.argv.slice(2);
const passes = Number(passesArg ?? 3);
const inputs = JSON.parse(fs.readFileSync(corpusPath, "utf8"));
if (reference !== "js" && reference !== "rust") {
  console.error(`tokenizer_bench: unknown reference '${reference}' (js or rust)`);
  process.exit(2);
}

const t0 = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
let encodeAll;
if (reference === "js") {
  const { Tokenizer } = await import(
    path.join(modules, "@huggingface/tokenizers/dist/tokenizers.mjs")
  );
  const json = JSON.parse(fs.readFileSync(path.join(modelDir, "tokenizer.json"), "utf8"));
  const configPath = path.join(modelDir, "tokenizer_config.json");
  const config = fs.existsSync(configPath) ? JSON.parse(fs.readFileSync(configPath, "utf8")) : {};
  const tokenizer = new Tokenizer(json, config);
  encodeAll = async () => {
    let ids = 0;
    for (const text of inputs) ids += tokenizer.encode(text).ids.length;
    return ids;
  };
} else {
  process.env.TOKENIZERS_PARALLELISM = "false";
  const { createRequire } = await import("node:module");
  const { Tokenizer } = createRequire(import.meta.url)(path.join(modules, "tokenizers"));
  const tokenizer = Tokenizer.fromFile(path.join(modelDir, "tokenizer.json"));
  encodeAll = async () => {
    let ids = 0;
    for (let i = 0; i < inputs.length; i += 256) {
      for (const e of await tokenizer.encodeBatch(inputs.slice(i, i + 256))) {
        ids += e.getIds().length;
      }
    }
    return ids;
  };
}
const loadSeconds = Number(process.hrtime.bigint() - t0) / 1e9;
const loadCpu = process.cpuUsage(cpu0);
const loadCpuSeconds = (loadCpu.user + loadCpu.system) / 1e6;

const bytes = inputs.reduce((n, s) => n + Buffer.byteLength(s, "utf8"), 0);
const ids = await encodeAll();  // warm-up (JIT, caches)
const passSeconds = [];
const passCpuSeconds = [];
for (let p = 0; p < passes; ++p) {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await encodeAll();
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
