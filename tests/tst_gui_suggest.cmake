# "Suggest a plan…" of the Grow planner (widgets/suggestdialog.h): the dialog's prefill from
# the workspace, its command line, its refusals, progress and cancel with a stand-in worker,
# the recommendation loaded into the planner, a failing worker's error, and one real search
# with growbench-cli on the tiny HF fixture. Its screenshots go with the tour's (<build>/tour).
if(TARGET growbench_widgets)
  gb_add_test(tst_gui_suggest GUI TIMEOUT 900)
  set_property(TEST tst_gui_suggest APPEND PROPERTY ENVIRONMENT "GB_TOUR_DIR=${CMAKE_BINARY_DIR}/tour")
endif()
