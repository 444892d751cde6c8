# The metric registry and typed progress events (core/util/metrics.h, events.h), plus a scan
# of the sources for metric-key literals outside the registry. Torch-free: growbench_base.
gb_add_test(tst_metrics TIMEOUT 120)
