gb_add_test(tst_branches TORCH)
