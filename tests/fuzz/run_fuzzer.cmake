# Copyright (c) 2026 The replicant authors
# SPDX-License-Identifier: MIT
#
# Runs one libFuzzer target for a bounded time from a fresh copy of its seed corpora:
#   cmake -DFUZZER=<binary> -DWORK=<scratch dir> -DSECONDS=<n> -DCORPORA=<dir>|<dir>|... -P run_fuzzer.cmake
# WORK is emptied first; each existing corpus directory is copied into WORK/corpus/<i>/ (libFuzzer
# reads a corpus directory recursively and writes what it finds into the first one it is given, so
# the copies are all it ever writes to). SECONDS=0 runs every seed once and does no fuzzing: the
# regression check. A crash leaves its reproducer in WORK/artifacts/ and fails the test.
foreach(var FUZZER WORK SECONDS CORPORA)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "run_fuzzer.cmake: -D${var}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}/corpus" "${WORK}/artifacts")
string(REPLACE "|" ";" corpora "${CORPORA}")
set(index 0)
set(seeds 0)
foreach(dir IN LISTS corpora)
  if(IS_DIRECTORY "${dir}")
    file(GLOB_RECURSE files LIST_DIRECTORIES false "${dir}/*")
    list(FILTER files EXCLUDE REGEX "/(stamp|README[^/]*)$")
    if(files)
      file(MAKE_DIRECTORY "${WORK}/corpus/${index}")
      file(COPY ${files} DESTINATION "${WORK}/corpus/${index}")
      list(LENGTH files n)
      math(EXPR seeds "${seeds} + ${n}")
    endif()
  endif()
  math(EXPR index "${index} + 1")
endforeach()
message(STATUS "${seeds} seed inputs")

if(SECONDS EQUAL 0)
  set(budget -runs=0)
else()
  set(budget -max_total_time=${SECONDS})
endif()
# -timeout: one input may take this long (seconds) before it counts as a hang; -rss_limit_mb: a
# run that needs more memory than this is a bug (two fuzzers must fit side by side on a small CI
# machine); -print_final_stats: the execution count for docs/reliability.md.
execute_process(
  COMMAND "${FUZZER}" ${budget} -timeout=25 -rss_limit_mb=2048 -print_final_stats=1
          "-artifact_prefix=${WORK}/artifacts/" "${WORK}/corpus"
  WORKING_DIRECTORY "${WORK}"
  RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${status}); the reproducer is in ${WORK}/artifacts/. "
                      "Run it again with: ${FUZZER} <file>")
endif()
