# Translations of the GUI: the .ts files are complete and cover the sources, and the .qm files
# the build compiles from them load and translate (translations/CMakeLists.txt).
if(TARGET growbench_widgets AND TARGET growbench_translations)
  gb_add_test(tst_gui_translations GUI TIMEOUT 300)
  add_dependencies(tst_gui_translations growbench_translations)
  if(TARGET Qt6::lupdate)
    target_compile_definitions(tst_gui_translations PRIVATE
      GB_LUPDATE="$<TARGET_FILE:Qt6::lupdate>")
  endif()
endif()
