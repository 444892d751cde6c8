gb_add_test(tst_cuda TORCH)
