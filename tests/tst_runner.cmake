# The experiment runner (core/experiment, core/train, core/eval): spec validation, ADEPT
# unit-wise learning rates, a short run per variant, resume equal to an uninterrupted run,
# SIGKILL of the real growbench-cli worker, NaN injection, OP/BWT and task sequences.
gb_add_test(tst_runner TORCH CLI TIMEOUT 900)
