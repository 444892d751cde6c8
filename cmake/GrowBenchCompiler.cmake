# Compiler settings shared by every target: warnings, ccache, and no debug info in Release
# (LibTorch's headers make debug info expensive to produce and to link).
find_program(GB_CCACHE ccache)
if(GB_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  # Precompiled headers need this sloppiness for ccache to hit; it must be in the
  # environment of every compile, hence the env launcher.
  set(GB_CCACHE_LAUNCHER ${CMAKE_COMMAND} -E env
      "CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime"
      ${GB_CCACHE})
  set(CMAKE_CXX_COMPILER_LAUNCHER ${GB_CCACHE_LAUNCHER})
  set(CMAKE_C_COMPILER_LAUNCHER ${GB_CCACHE_LAUNCHER})
  message(STATUS "GrowBench: using ccache ${GB_CCACHE}")
endif()

if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  add_compile_options(-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # LibTorch's headers trigger these in GCC 12.
    add_compile_options(-Wno-maybe-uninitialized -Wno-stringop-overflow -Wno-array-bounds
                        -Wno-deprecated-declarations)
  endif()
endif()
set(CMAKE_CXX_FLAGS_RELEASE "-O2 -DNDEBUG")
set(CMAKE_CXX_FLAGS_RELWITHDEBINFO "-O2 -g1")
