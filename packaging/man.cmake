# Writes a man page of growbench-cli or growbench with help2man from the program's own
# --help and --version (run at build time by packaging/CMakeLists.txt):
#   cmake -DPROGRAM=<path> -DHELP2MAN=<path> -DNAME=<one line> -DOUT=<file.1.gz>
#         [-DCOMMANDS=ON] -P man.cmake
# With COMMANDS=ON (growbench-cli) the page gets a COMMANDS section with every command's
# --help, taken from the command list of `growbench-cli --help`.
cmake_minimum_required(VERSION 3.16)
foreach(v PROGRAM HELP2MAN NAME OUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "man.cmake: -D${v}=... missing")
  endif()
endforeach()
get_filename_component(out_dir "${OUT}" DIRECTORY)
get_filename_component(program_name "${PROGRAM}" NAME)
set(include_file "${out_dir}/${program_name}.h2m")
set(page "${out_dir}/${program_name}.1")
# The environment of the generated text: no display, English, no log level from outside.
set(ENV{QT_QPA_PLATFORM} offscreen)
set(ENV{LC_ALL} C)
unset(ENV{GROWBENCH_LOG})

set(include_text "[ENVIRONMENT]\n.TP\n.B GROWBENCH_LOG\n")
string(APPEND include_text
       "Log level of messages on standard error when \\fB--log-level\\fR is not given: "
       "trace, debug, info (default), warn, error or off.\n")
if(COMMANDS)
  execute_process(COMMAND "${PROGRAM}" --help OUTPUT_VARIABLE top RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "man.cmake: ${PROGRAM} --help failed (${rc})")
  endif()
  string(REGEX REPLACE ".*\nCommands:\n" "" list "${top}")
  string(REGEX REPLACE "\n\n.*" "" list "${list}")
  string(REGEX REPLACE "^.*\nCommands:\n[^\n]*(\n[^\n]+)*\n\n" "" rest "${top}")
  string(REGEX REPLACE "\n.*" "" first "${top}")
  # The description with the command list verbatim (help2man would reflow it).
  string(APPEND include_text "[=DESCRIPTION]\n${first}\n.PP\nCommands:\n.nf\n${list}\n.fi\n"
                             ".PP\n${rest}\n")
  string(REPLACE "\n" ";" lines "${list}")
  string(APPEND include_text "[COMMANDS]\n")
  foreach(line IN LISTS lines)
    string(STRIP "${line}" line)
    string(REGEX MATCH "^[a-z][a-z0-9-]*" command "${line}")
    if(command STREQUAL "")
      continue()
    endif()
    execute_process(COMMAND "${PROGRAM}" ${command} --help OUTPUT_VARIABLE help
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "man.cmake: ${PROGRAM} ${command} --help failed (${rc})")
    endif()
    # roff: a leading dot or quote would start a request; backslashes escape.
    string(REPLACE "\\" "\\e" help "${help}")
    string(REGEX REPLACE "\n([.'])" "\n\\\\&\\1" help "${help}")
    string(APPEND include_text ".SS ${command}\n.nf\n${help}.fi\n")
  endforeach()
endif()
file(WRITE "${include_file}" "${include_text}")

execute_process(
  COMMAND "${HELP2MAN}" --no-info --section=1 "--name=${NAME}" "--include=${include_file}"
          "--output=${page}" "${PROGRAM}"
  RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "man.cmake: help2man ${PROGRAM} failed (${rc}): ${err}")
endif()
execute_process(COMMAND gzip -9 -n -f "${page}" RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT EXISTS "${OUT}")
  message(FATAL_ERROR "man.cmake: gzip ${page} failed")
endif()
