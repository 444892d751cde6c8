gb_add_test(tst_scale TORCH)
