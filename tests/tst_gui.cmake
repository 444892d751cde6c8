# The GUI (widgets/, app/gui/): Qt Test on the offscreen platform, driving the real widgets
# and the real growbench-cli worker (probes, grow checks, runs). Its tour screenshots are
# kept in <build>/tour (CI artifacts).
if(TARGET growbench_widgets)
  gb_add_test(tst_gui GUI TIMEOUT 1800)
  set_property(TEST tst_gui APPEND PROPERTY ENVIRONMENT "GB_TOUR_DIR=${CMAKE_BINARY_DIR}/tour")
  # The same tour from the real program on a real X server (Xvfb), when xvfb-run exists:
  # every view on a fresh workspace, which the tour populates itself (a short quickstart on
  # the shipped tiny-llama preset, a masking and a Taylor probe on English fortunes);
  # screenshots in <build>/tour-xvfb.
  find_program(GB_XVFB_RUN xvfb-run)
  if(GB_XVFB_RUN)
    add_test(NAME gui_tour_xvfb
             COMMAND sh -c "rm -rf \"$1\" && exec \"$0\" -a -s '-screen 0 1600x1000x24' \"$2\" --tour \"$3\" --workspace \"$1\""
                     ${GB_XVFB_RUN} ${CMAKE_CURRENT_BINARY_DIR}/tmp/tour-workspace
                     $<TARGET_FILE:growbench> ${CMAKE_BINARY_DIR}/tour-xvfb)
    set_tests_properties(gui_tour_xvfb PROPERTIES TIMEOUT 1500
      ENVIRONMENT "QT_QPA_PLATFORM=xcb;GROWBENCH_CLI=$<TARGET_FILE:growbench-cli>")
  endif()
endif()
