// Reference encodings for the tokenizer parity test (tests/tst_tokenizer.cpp).
//
//   node tests/npm/encode.mjs MODEL_DIR INPUT.json OUTPUT.json [js|rust]
//
// MODEL_DIR holds tokenizer.json and, optionally, tokenizer_config.json. INPUT.json is a JSON
// array of strings, one input each (the test passes one fortune or one edge case per input).
// With the reference `js` (default) each input is encoded with @huggingface/tokenizers as
//   new Tokenizer(tokenizerJson, tokenizerConfig).encode(text)                   -> "special"
//   new Tokenizer(...).encode(text, { add_special_tokens: false })              -> "plain"
// with `rust`, by the npm package tokenizers (Hugging Face's Rust library, prebuilt) as
//   Tokenizer.fromFile(MODEL_DIR/tokenizer.json).encodeBatch(texts)             -> "special"
//   ....encodeBatch(texts, { addSpecialTokens: false })                          -> "plain"
// and OUTPUT.json receives {"special": [[ids...], ...], "plain": [[ids...], ...],
// "seconds": encode time}.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";

const [modelDir, inputPath, outputPath, reference = "js"] = process.argv.slice(2);
if (!modelDir || !inputPath || !outputPath || !["js", "rust"].includes(reference)) {
  console.error("usage: node encode.mjs MODEL_DIR INPUT.json OUTPUT.json [js|rust]");
  process.exit(2);
}
const inputs = JSON.parse(fs.readFileSync(inputPath, "utf8"));
if (!Array.isArray(inputs)) {
  console.error(`${inputPath}: expected a JSON array of strings`);
  process.exit(2);
}

if (reference === "rust") {
  const { Tokenizer } = createRequire(import.meta.url)("tokenizers");
  const tokenizer = Tokenizer.fromFile(path.join(modelDir, "tokenizer.json"));
  const encodeAll = async (addSpecialTokens) => {
    const ids = [];
    for (let i = 0; i < inputs.length; i += 256) {
      const batch = await tokenizer.encodeBatch(inputs.slice(i, i + 256), { addSpecialTokens });
      for (const e of batch) ids.push(e.getIds());
    }
    return ids;
  };
  const start = process.hrtime.bigint();
  const special = await encodeAll(true);
  const plain = await encodeAll(false);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  fs.writeFileSync(outputPath, JSON.stringify({ special, plain, seconds }));
  process.exit(0);
}

const { Tokenizer } = await import("@huggingface/tokenizers");

const tokenizerJson = JSON.parse(fs.readFileSync(path.join(modelDir, "tokenizer.json"), "utf8"));
const configPath = path.join(modelDir, "tokenizer_config.json");
const tokenizerConfig = fs.existsSync(configPath)
  ? JSON.parse(fs.readFileSync(configPath, "utf8"))
  : {};
const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);

const start = process.hrtime.bigint();
const special = inputs.map((text) => tokenizer.encode(text).ids);
const plain = inputs.map((text) => tokenizer.encode(text, { add_special_tokens: false }).ids);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;

fs.writeFileSync(outputPath, JSON.stringify({ special, plain, seconds }));
