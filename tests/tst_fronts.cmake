# Trade-off fronts and forgetting at matched learning (compare --at) on hand-made stores:
# every row recomputed from the metrics table, hand-worked rows, auto level, usage errors.
gb_add_test(tst_fronts TORCH CLI TIMEOUT 300)
