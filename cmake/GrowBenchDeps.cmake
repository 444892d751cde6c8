# Third-party dependencies of the core (no Qt): LibTorch, spdlog/fmt, nlohmann_json, SQLite,
# PCRE2 and utf8proc. A prefix of unpacked Debian packages (GPU machines) can be given with
# CMAKE_PREFIX_PATH / PKG_CONFIG_PATH; see scripts/gpu/.
if(NOT GB_FUZZ_ONLY)
  find_package(Torch REQUIRED)
endif()
find_package(Threads REQUIRED)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(SQLite3 REQUIRED)
find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
  pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
else()
  # Machines without pkg-config (the GPU machine): find the headers and libraries directly
  # (CMAKE_PREFIX_PATH points at the unpacked Debian packages) and make the same targets.
  foreach(lib PCRE2 UTF8PROC)
    if(lib STREQUAL "PCRE2")
      set(_header pcre2.h)
      set(_name pcre2-8)
    else()
      set(_header utf8proc.h)
      set(_name utf8proc)
    endif()
    find_path(GB_${lib}_INCLUDE ${_header} REQUIRED)
    find_library(GB_${lib}_LIBRARY ${_name} REQUIRED)
    add_library(PkgConfig::${lib} INTERFACE IMPORTED)
    set_target_properties(PkgConfig::${lib} PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES ${GB_${lib}_INCLUDE}
      INTERFACE_LINK_LIBRARIES ${GB_${lib}_LIBRARY})
  endforeach()
endif()
if(NOT GB_FUZZ_ONLY)
  message(STATUS "GrowBench: LibTorch ${Torch_VERSION}")
endif()
