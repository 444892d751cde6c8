# Growth operators Grow / depth expansion / LoRA and the baselines, grown-model checkpoints
# (core/grow): every family of the model fixtures.
gb_add_test(tst_grow TORCH TIMEOUT 900)
