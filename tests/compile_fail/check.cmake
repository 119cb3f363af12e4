# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# One compile-fail test: `cmake -DFLAGS_FILE=<file> -DSOURCE=<file.cpp> -P check.cmake`.
# FLAGS_FILE holds the compiler and its arguments, one per line (written at configure time).
# The source must compile as it is (so it is well-formed apart from what it tests), and must fail
# to compile with REPLICANT_COMPILE_FAIL defined, printing the message its `// expect: <regex>`
# line names, in the first error the compiler reports. Both compiles are syntax-only: nothing is
# generated, nothing of the build tree is touched, so these tests run in parallel with each other and
# with anything else.
file(STRINGS "${FLAGS_FILE}" command)
file(STRINGS "${SOURCE}" expect REGEX "^// expect: ")
if(NOT expect)
  message(FATAL_ERROR "${SOURCE} has no '// expect: <regex>' line")
endif()
string(REGEX REPLACE "^// expect: " "" expect "${expect}")

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
execute_process(COMMAND ${command} -DREPLICANT_COMPILE_FAIL ${first_error_only} -fsyntax-only "${SOURCE}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(rc EQUAL 0)
  message(FATAL_ERROR "compiled with REPLICANT_COMPILE_FAIL, and must not")
endif()
if(NOT out MATCHES "${expect}")
  message(FATAL_ERROR "failed to compile, but without the expected message /${expect}/:\n${out}")
endif()
message(STATUS "fails to compile, saying: /${expect}/")
