# The grouped compare view, the honest run tables and curves, and the launch form's seeds and
# sweep section, on a hand-made store (Qt Test, offscreen; no worker runs).
if(TARGET growbench_widgets)
  gb_add_test(tst_compare GUI TIMEOUT 300)
endif()
