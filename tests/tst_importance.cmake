# Importance probes and layer selection (core/importance).
gb_add_test(tst_importance TORCH TIMEOUT 900)
