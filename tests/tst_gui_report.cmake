# The report dialog (widgets/reportdialog.h): writes a group's report through the real
# growbench-cli and shows its verdicts.
if(TARGET growbench_widgets)
  gb_add_test(tst_gui_report GUI TIMEOUT 300)
endif()
