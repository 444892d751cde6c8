# Late answers (the run store's worker, growbench-cli jobs, probe loads) never override what
# the user did since they were asked for: tests/tst_gui_races.cpp.
if(TARGET growbench_widgets)
  gb_add_test(tst_gui_races GUI TIMEOUT 600)
endif()
