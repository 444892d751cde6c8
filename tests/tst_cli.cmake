# growbench-cli generate and score, run as the real program on the Llama fixture with a
# tokenizer trained in the test (CLI: GB_CLI_PATH).
gb_add_test(tst_cli TORCH CLI)
