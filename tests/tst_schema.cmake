# The experiment spec's one declaration (core/experiment/spec_schema.cpp): shipped specs hold
# only declared keys, every key is documented (docs/experiments.md's generated tables), the
# defaults agree with spec.h and parse_spec, unknown keys name the full path and the nearest
# key, `growbench-cli schema` and its exit status 2 for an unknown key (CLI: GB_CLI_PATH).
gb_add_test(tst_schema TORCH CLI TIMEOUT 120)
