# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# Header self-containment for one component:
#   cmake -DFLAGS_FILE=<file> -DINCLUDE_ROOT=<include/> -DCOMPONENT=<folder, or "." for the top level> -P headers.cmake
# Every header of the component compiles on its own, included twice (the include guard) and nothing
# else. Syntax-only: nothing is generated and the build tree is not touched. The impl/ headers are
# left out: each is the second half of one public header, which includes it at its end and is the
# only header that does (the walls test keeps it so), so compiling that header checks them; on
# their own each would parse the whole component again (the pipeline's six took 40 of its 61 s).
file(STRINGS "${FLAGS_FILE}" command)
if(COMPONENT STREQUAL ".")
  file(GLOB headers RELATIVE "${INCLUDE_ROOT}" "${INCLUDE_ROOT}/replicant/*.hpp")
else()
  file(GLOB_RECURSE headers RELATIVE "${INCLUDE_ROOT}" "${INCLUDE_ROOT}/replicant/${COMPONENT}/*.hpp")
endif()
list(FILTER headers EXCLUDE REGEX "/impl/")
if(NOT headers)
  message(FATAL_ERROR "no header in ${COMPONENT}")
endif()
set(failed "")
foreach(header IN LISTS headers)
  string(MAKE_C_IDENTIFIER "${header}" stem)
  set(tu "${CMAKE_CURRENT_BINARY_DIR}/header_check_${stem}.cpp")
  file(WRITE "${tu}" "#include <${header}>\n#include <${header}>\n")
  execute_process(COMMAND ${command} -fsyntax-only "${tu}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  file(REMOVE "${tu}")
  if(NOT rc EQUAL 0)
    message("${header} does not compile on its own:\n${out}")
    list(APPEND failed "${header}")
  endif()
endforeach()
list(LENGTH headers n)
if(failed)
  message(FATAL_ERROR "not self-contained: ${failed}")
endif()
message(STATUS "${n} headers of ${COMPONENT} compile on their own")
