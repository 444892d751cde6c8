# The GUI (widgets/, app/gui/): Qt Test on the offscreen platform, driving the real widgets
# and the real growbench-cli worker (probes, grow checks, runs). Its tour screenshots are
# kept in <build>/tour (CI artifacts).
if(TARGET growbench_widgets)
  gb_add_test(tst_gui GUI TIMEOUT 1800)
  set_property(TEST tst_gui APPEND PROPERTY ENVIRONMENT "GB_TOUR_DIR=${CMAKE_BINARY_DIR}/tour")
  # The same tour from the real program on a real X server (Xvfb), when xvfb-run exists:
  # every view on a fresh workspace with the llama fixture open; screenshots in
  # <build>/tour-xvfb.
  find_program(GB_XVFB_RUN xvfb-run)
  if(GB_XVFB_RUN)
    add_test(NAME gui_tour_xvfb
             COMMAND ${GB_XVFB_RUN} -a -s "-screen 0 1600x1000x24"
                     $<TARGET_FILE:growbench> --tour ${CMAKE_BINARY_DIR}/tour-xvfb
                     --workspace ${CMAKE_CURRENT_BINARY_DIR}/tmp/tour-workspace
                     --model ${GB_SHARED_DIR}/fixtures/hf-reference/llama)
    set_tests_properties(gui_tour_xvfb PROPERTIES TIMEOUT 300
      ENVIRONMENT "QT_QPA_PLATFORM=xcb;GROWBENCH_CLI=$<TARGET_FILE:growbench-cli>")
  endif()
endif()
