# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# CLI11 (Debian's libcli11-dev, header-only), which reads the example programs' command lines,
# and `replicant::examples_cli`, the examples' command line built on it (examples/common/cli.cpp):
# the one translation unit that includes CLI11, whose inline code cost each program and test that
# read a command line about nine seconds to compile. Not part of the library or its package: the
# examples, the tests that include their headers and the end-to-end benchmark's consumer link it.
# CLI11's CMake package is used when there is one; otherwise its header alone is enough.
find_package(CLI11 CONFIG QUIET)
add_library(replicant_cli11 INTERFACE)
if(TARGET CLI11::CLI11)
  target_link_libraries(replicant_cli11 INTERFACE CLI11::CLI11)
else()
  find_path(REPLICANT_CLI11_INCLUDE_DIR CLI/CLI.hpp)
  if(NOT REPLICANT_CLI11_INCLUDE_DIR)
    message(FATAL_ERROR "CLI11 (libcli11-dev) not found: the examples and tests need it (tools/provision installs "
                        "it), or configure with -DREPLICANT_BUILD_EXAMPLES=OFF -DREPLICANT_BUILD_TESTS=OFF")
  endif()
  target_include_directories(replicant_cli11 SYSTEM INTERFACE ${REPLICANT_CLI11_INCLUDE_DIR})
endif()
add_library(replicant::cli11 ALIAS replicant_cli11)

add_library(replicant_examples_cli STATIC ${PROJECT_SOURCE_DIR}/examples/common/cli.cpp)
target_link_libraries(replicant_examples_cli PUBLIC replicant::replicant PRIVATE replicant::cli11)
add_library(replicant::examples_cli ALIAS replicant_examples_cli)
