# The GUI (widgets/, app/gui/): Qt Test on the offscreen platform, driving the real widgets
# and the real growbench-cli worker (probes, grow checks, runs).
if(TARGET growbench_widgets)
  gb_add_test(tst_gui GUI TIMEOUT 1800)
endif()
