gb_add_test(tst_safetensors TORCH)
