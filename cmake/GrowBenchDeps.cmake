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
find_package(PkgConfig REQUIRED)
pkg_check_modules(PCRE2 REQUIRED IMPORTED_TARGET libpcre2-8)
pkg_check_modules(UTF8PROC REQUIRED IMPORTED_TARGET libutf8proc)
if(NOT GB_FUZZ_ONLY)
  message(STATUS "GrowBench: LibTorch ${Torch_VERSION}")
endif()
