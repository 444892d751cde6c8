# Packaging metadata of the GUI (packaging/CMakeLists.txt): the desktop entry and the
# AppStream metainfo pass their validators. scripts/package-check.sh checks the built .deb.
if(TARGET growbench_widgets AND DEFINED GB_APP_ID)
  find_program(GB_DESKTOP_FILE_VALIDATE desktop-file-validate)
  find_program(GB_APPSTREAMCLI appstreamcli)
  if(GB_DESKTOP_FILE_VALIDATE)
    add_test(NAME packaging_desktop_entry
      COMMAND ${GB_DESKTOP_FILE_VALIDATE} ${PROJECT_SOURCE_DIR}/packaging/growbench.desktop)
    # desktop-file-validate exits 0 on warnings: fail on any output too.
    set_tests_properties(packaging_desktop_entry PROPERTIES FAIL_REGULAR_EXPRESSION ".")
  endif()
  if(GB_APPSTREAMCLI)
    add_test(NAME packaging_appstream_metainfo
      COMMAND ${GB_APPSTREAMCLI} validate --no-net
              ${PROJECT_BINARY_DIR}/packaging/${GB_APP_ID}.metainfo.xml)
  endif()
endif()
