# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# Precompiles <replicant/pipeline.hpp> for the compile-fail tests whose sources include it:
# `cmake -DFLAGS_FILE=<file> -DHEADER=<dir>/pipeline.hpp -P precompile.cmake` writes HEADER and
# HEADER.gch with the tests' own compiler and flags (FLAGS_FILE, as in check.cmake).
#
# Why: such a source spends most of each compile parsing the pipeline's headers (GCC 12: ~8.5 s a
# compile, ~5.3 s with the header precompiled), and the compile-fail tests compile them some fifty
# times. Sources that include less are left alone: loading a precompiled header costs GCC ~3 s,
# more than they spend parsing. Only GCC is served (the compile-fail tests run under the dev preset's
# GCC); with another compiler nothing is written, and check.cmake compiles as before.
file(STRINGS "${FLAGS_FILE}" command)
list(GET command 0 compiler)
file(REMOVE "${HEADER}" "${HEADER}.gch")
if(compiler MATCHES "clang")
  message(STATUS "not GCC: the compile-fail tests parse the pipeline's headers themselves")
  return()
endif()
get_filename_component(dir "${HEADER}" DIRECTORY)
file(MAKE_DIRECTORY "${dir}")
file(WRITE "${HEADER}" "#include <replicant/pipeline.hpp>\n")
execute_process(COMMAND ${command} -x c++-header "${HEADER}" -o "${HEADER}.gch"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  file(REMOVE "${HEADER}" "${HEADER}.gch")
  message(FATAL_ERROR "precompiling <replicant/pipeline.hpp> failed:\n${out}")
endif()
message(STATUS "precompiled <replicant/pipeline.hpp> into ${HEADER}.gch")
