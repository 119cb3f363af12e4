# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# One compile-fail test: `cmake -DFLAGS_FILE=<file> -DSOURCE=<file.cpp> -P check.cmake`.
# FLAGS_FILE holds the compiler and its arguments, one per line (written at configure time).
# The source must compile as it is (so it is well-formed apart from what it tests), and must fail
# to compile with REPLICANT_COMPILE_FAIL defined, printing the message its `// expect: <regex>`
# line names, in the first error the compiler reports.
#
# A source may hold several cases instead, one `// expect <case>: <regex>` line each: each case is
# compiled with REPLICANT_COMPILE_FAIL and REPLICANT_COMPILE_FAIL_<case> defined, and must fail
# with its own message. Such cases share the one control compile (and the user code they break
# differently), which is most of their cost.
#
# All compiles are syntax-only: nothing is generated, nothing of the build tree is touched, so these
# tests run in parallel with each other and with anything else.
file(STRINGS "${FLAGS_FILE}" command)
file(STRINGS "${SOURCE}" expects REGEX "^// expect( [A-Za-z0-9_]+)?: ")
if(NOT expects)
  message(FATAL_ERROR "${SOURCE} has no '// expect: <regex>' line")
endif()
list(LENGTH expects count)

execute_process(COMMAND ${command} -fsyntax-only "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the control compile (without REPLICANT_COMPILE_FAIL) failed:\n${out}")
endif()

# The compiler stops at its first error: that error must be ours (a test that fails for another
# reason first does not pass), and nothing after it is worth the time.
list(GET command 0 compiler)
if(compiler MATCHES "clang")
  set(first_error_only -ferror-limit=1)
else()
  set(first_error_only -fmax-errors=1)
endif()
foreach(line IN LISTS expects)
  string(REGEX MATCH "^// expect( ([A-Za-z0-9_]+))?: (.*)$" _ "${line}")
  set(case "${CMAKE_MATCH_2}")
  set(expect "${CMAKE_MATCH_3}")
  set(defines -DREPLICANT_COMPILE_FAIL)
  set(label "${case}")
  if(case)
    list(APPEND defines -DREPLICANT_COMPILE_FAIL_${case})
  elseif(count GREATER 1)
    message(FATAL_ERROR "${SOURCE}: a plain '// expect:' line must be the only one; name each of several cases")
  else()
    get_filename_component(label "${SOURCE}" NAME_WE)
  endif()
  execute_process(COMMAND ${command} ${defines} ${first_error_only} -fsyntax-only "${SOURCE}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${label}: compiled with ${defines}, and must not")
  endif()
  if(NOT out MATCHES "${expect}")
    message(FATAL_ERROR "${label}: failed to compile, but without the expected message /${expect}/:\n${out}")
  endif()
  message(STATUS "${label}: fails to compile, saying: /${expect}/")
endforeach()
