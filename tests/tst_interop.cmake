# Interoperability: PEFT LoRA adapters (export, import, merge, errors), lm-evaluation-
# harness-shaped evaluation JSON, and TensorBoard event files, through the real growbench-cli
# (CLI: GB_CLI_PATH) on the Llama reference fixture with a tokenizer trained in the test.
gb_add_test(tst_interop TORCH CLI)
