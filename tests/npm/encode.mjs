// Reference encodings for the tokenizer parity test (tests/tst_tokenizer.cpp).
//
//   node tests/npm/encode.mjs MODEL_DIR INPUT.json OUTPUT.json
//
// MODEL_DIR holds tokenizer.json and, optionally, tokenizer_config.json. INPUT.json is a JSON
// array of strings, one input each (the test passes one fortune or one edge case per input).
// Each input is encoded with @huggingface/tokenizers as
//   new Tokenizer(tokenizerJson, tokenizerConfig).encode(text)                   -> "special"
//   new Tokenizer(...).encode(text, { add_special_tokens: false })              -> "plain"
// and OUTPUT.json receives {"special": [[ids...], ...], "plain": [[ids...], ...],
// "seconds": encode time}.
import fs from "node:fs";
import path from "node:path";
import { Tokenizer } from "@huggingface/tokenizers";

const [modelDir, inputPath, outputPath] = process.argv.slice(2);
if (!modelDir || !inputPath || !outputPath) {
  console.error("usage: node encode.mjs MODEL_DIR INPUT.json OUTPUT.json");
  process.exit(2);
}

const tokenizerJson = JSON.parse(fs.readFileSync(path.join(modelDir, "tokenizer.json"), "utf8"));
const configPath = path.join(modelDir, "tokenizer_config.json");
const tokenizerConfig = fs.existsSync(configPath)
  ? JSON.parse(fs.readFileSync(configPath, "utf8"))
  : {};
const tokenizer = new Tokenizer(tokenizerJson, tokenizerConfig);

const inputs = JSON.parse(fs.readFileSync(inputPath, "utf8"));
if (!Array.isArray(inputs)) {
  console.error(`${inputPath}: expected a JSON array of strings`);
  process.exit(2);
}

const start = process.hrtime.bigint();
const special = inputs.map((text) => tokenizer.encode(text).ids);
const plain = inputs.map((text) => tokenizer.encode(text, { add_special_tokens: false }).ids);
const seconds = Number(process.hrtime.bigint() - start) / 1e9;

fs.writeFileSync(outputPath, JSON.stringify({ special, plain, seconds }));
