# Suggest a plan (growbench-cli suggest): halving rungs and choice under seeded noise, the time
# budget on a fake clock, toy searches on the llama fixture (a planted winner, a forgetting
# budget nobody meets) checked against the store, a killed search resumed, usage errors.
gb_add_test(tst_suggest TORCH CLI TIMEOUT 900)
