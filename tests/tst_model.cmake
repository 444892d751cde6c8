gb_add_test(tst_model TORCH)
