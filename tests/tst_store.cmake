# The SQLite run store (core/store): torch-free, links growbench_base only.
gb_add_test(tst_store TIMEOUT 300)
