# ADEPT stage 2 as its public code runs it (core/experiment/adept_stage2.h, the runner's
# update_unit_lrs): the multipliers against the code's formula, the schedule (never at step
# 0), the most important unit's rate on a constructed model, per-kind normalisation, and the
# in-place plan (ADEPT without stage 1) through the runner and growbench-cli grow.
gb_add_test(tst_adept TORCH CLI TIMEOUT 600)
