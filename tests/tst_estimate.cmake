# Memory estimates (core/experiment/estimate.h): the formulas against built models, the
# estimate against the measured peak RSS of training steps (in child processes of the test),
# run --dry-run of a Qwen3-0.6B config without weights, and the refusal of a run that does
# not fit in the available memory.
gb_add_test(tst_estimate TORCH CLI)
