# growbench-cli generate and score, run as the real program on the Llama fixture with a
# tokenizer trained in the test (CLI: GB_CLI_PATH), the declared command line of every
# command, and growbench --help/--version without a display (GB_GUI_PATH, when built).
gb_add_test(tst_cli TORCH CLI)
if(TARGET growbench)
  target_compile_definitions(tst_cli PRIVATE GB_GUI_PATH="$<TARGET_FILE:growbench>")
  add_dependencies(tst_cli growbench)
endif()
