# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# One compile-fail test: `cmake -DFLAGS_FILE=<file> -DSOURCE=<file.cpp> -P check.cmake`.
# FLAGS_FILE holds the compiler and its arguments, one per line (written at configure time).
# The source must compile as it is (so it is well-formed apart from what it tests), and must fail
# to compile with REPLICANT_COMPILE_FAIL defined, in a way a reader sees at once:
# - the first line of the compiler's output that says `error:` matches the regex of the source's
#   `// expect: <regex>` line (the sentence is the first error, not one found further down);
# - no later line is a bare `static assertion failed` (a static_assert without a message, such as
#   the caller's assertion on a checklist that has already said why, adds noise and no reason);
# - with a `// context: <regex>` line, the regex matches the first error line or the lines the
#   compiler prints before it (GCC's "In instantiation of ..."): for what only the instantiation
#   can name, such as the struct member whose type no column fills.
#
# A source may hold several cases instead, one `// expect <case>: <regex>` line each (and
# `// context <case>: <regex>` lines as needed): each case is compiled with REPLICANT_COMPILE_FAIL
# and REPLICANT_COMPILE_FAIL_<case> defined, and must fail with its own message. Such cases share
# the one control compile (and the user code they break differently), which is most of their cost.
#
# All compiles are syntax-only: nothing is generated, nothing of the build tree is touched, so these
# tests run in parallel with each other and with anything else.
# With PIPELINE_PCH (precompile.cmake's HEADER), a source that includes <replicant/pipeline.hpp>
# loads the precompiled header first, which then makes the source's own include of it a no-op: same
# declarations, same diagnostics, a third less time. -Winvalid-pch (an error under -Werror) fails the
# test rather than quietly parsing again should the header not fit the flags.
file(STRINGS "${FLAGS_FILE}" command)
if(PIPELINE_PCH AND EXISTS "${PIPELINE_PCH}.gch")
  file(STRINGS "${SOURCE}" includes_pipeline REGEX "^#include <replicant/pipeline\\.hpp>")
  if(includes_pipeline)
    list(APPEND command -include "${PIPELINE_PCH}" -Winvalid-pch)
  endif()
endif()
file(STRINGS "${SOURCE}" expects REGEX "^// expect( [A-Za-z0-9_]+)?: ")
if(NOT expects)
  message(FATAL_ERROR "${SOURCE} has no '// expect: <regex>' line")
endif()
list(LENGTH expects count)

# CONTROL_DONE: controls.cmake has compiled this source's control already, with the others.
if(NOT CONTROL_DONE)
  execute_process(COMMAND ${command} -fsyntax-only "${SOURCE}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "the control compile (without REPLICANT_COMPILE_FAIL) failed:\n${out}")
  endif()
endif()

file(STRINGS "${SOURCE}" contexts REGEX "^// context( [A-Za-z0-9_]+)?: ")
foreach(context_line IN LISTS contexts)
  string(REGEX MATCH "^// context( [A-Za-z0-9_]+)?: " prefix "${context_line}")
  string(REPLACE "// context" "// expect" expect_prefix "${prefix}")
  set(found FALSE)
  foreach(line IN LISTS expects)
    string(FIND "${line}" "${expect_prefix}" pos)
    if(pos EQUAL 0)
      set(found TRUE)
    endif()
  endforeach()
  if(NOT found)
    message(FATAL_ERROR "${SOURCE}: '${prefix}' names no case of an '// expect' line")
  endif()
endforeach()

# Every error is printed (no error limit): what follows the first one is checked too.
list(GET command 0 compiler)
if(compiler MATCHES "clang")
  set(no_error_limit -ferror-limit=0)
else()
  set(no_error_limit -fmax-errors=0)
endif()
# A static_assert failure without a message: GCC's and Clang 15's `static assertion failed`,
# Clang 14's `static_assert failed`, each bare or with Clang's failed requirement in quotes.
set(bare_static_assert "error: static(_assert| assertion) failed( due to requirement '[^\n]*')?\n")
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
  execute_process(COMMAND ${command} ${defines} ${no_error_limit} -fsyntax-only "${SOURCE}"
    RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(rc EQUAL 0)
    message(FATAL_ERROR "${label}: compiled with ${defines}, and must not")
  endif()
  # The first error line, what the compiler printed before it, and what it printed after it.
  string(FIND "${out}" "error:" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${label}: failed to compile without an error line:\n${out}")
  endif()
  string(SUBSTRING "${out}" 0 ${at} before)
  string(SUBSTRING "${out}" ${at} -1 rest)
  string(FIND "${rest}" "\n" eol)
  if(eol EQUAL -1)
    string(LENGTH "${rest}" eol)
  endif()
  string(SUBSTRING "${rest}" 0 ${eol} error_tail)
  string(FIND "${before}" "\n" line_start REVERSE)
  math(EXPR line_start "${line_start} + 1")
  string(SUBSTRING "${before}" ${line_start} -1 error_head)
  set(first_error "${error_head}${error_tail}")
  string(SUBSTRING "${rest}" ${eol} -1 after)
  if(NOT first_error MATCHES "${expect}")
    message(FATAL_ERROR "${label}: the first error is not the expected message /${expect}/:\n${first_error}\n\n"
                        "The whole output:\n${out}")
  endif()
  if("${after}\n" MATCHES "${bare_static_assert}")
    message(FATAL_ERROR "${label}: after the expected message, a static_assert failed without one:\n"
                        "${CMAKE_MATCH_0}\nThe whole output:\n${out}")
  endif()
  foreach(context_line IN LISTS contexts)
    string(REGEX MATCH "^// context( ([A-Za-z0-9_]+))?: (.*)$" _ "${context_line}")
    if("${CMAKE_MATCH_2}" STREQUAL "${case}")
      set(context "${CMAKE_MATCH_3}")
      if(NOT "${before}${error_tail}" MATCHES "${context}")
        message(FATAL_ERROR "${label}: neither the first error nor what precedes it matches /${context}/:\n"
                            "${before}${error_tail}")
      endif()
      message(STATUS "${label}: the first error names /${context}/")
    endif()
  endforeach()
  message(STATUS "${label}: fails to compile, its first error saying: /${expect}/")
endforeach()
