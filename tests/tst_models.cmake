# Item models and helpers of the GUI, checked with QAbstractItemModelTester (no worker).
if(TARGET growbench_widgets)
  gb_add_test(tst_models GUI TIMEOUT 300)
endif()
