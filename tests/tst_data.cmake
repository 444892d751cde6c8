# The data layer (core/data): readers, splits, tokenised cache, packing, batching, the
# biography benchmark. Torch-free: links growbench_base only.
gb_add_test(tst_data)
