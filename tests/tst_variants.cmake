# The variant registry (core/grow/variant.h, core/grow/variants/): schemas, plan parsing and
# its errors derived from them, the plan docs' generated tables, the unit registry.
gb_add_test(tst_variants TORCH)
