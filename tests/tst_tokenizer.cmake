# Tokenizer parity, round trip, component and trainer tests (torch-free: links growbench_base).
# The parity tests run node on tests/npm/encode.mjs (packages from scripts/npm-deps.sh).
gb_add_test(tst_tokenizer TIMEOUT 1800)
# The parity functions wait for node on a 1.2 MB corpus (three tokenizers, each with and without
# special tokens); Qt Test's default 300 s per function is too short on a loaded CI machine.
set_property(TEST tst_tokenizer APPEND PROPERTY ENVIRONMENT "QTEST_FUNCTION_TIMEOUT=1500000")
