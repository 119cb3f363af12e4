// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The separately compiled mode from the installed package (README.md, "A program of many units"):
// this unit and separate_src.cpp are built with REPLICANT_SEPARATE_COMPILATION, so the pgoutput
// decoder is only declared here and linked from separate_src.cpp's <replicant/src.hpp>.
#include <replicant/pipeline.hpp>
#include <replicant/testing/pgoutput_writer.hpp>

#include <cstdio>
#include <variant>

#if !defined(REPLICANT_SEPARATE_COMPILATION)
#error "this consumer is built in the separately compiled mode"
#endif

auto main() -> int {
  using namespace replicant::literals;
  const auto begin = replicant::testing::pgoutput::begin("0/16B3748"_lsn, 0, 771);
  replicant::pgoutput_reader reader;
  const auto message = reader.decode(begin);
  if (!message || !std::holds_alternative<replicant::pgoutput::begin_message>(*message)) return 1;
  std::printf("the pgoutput reader, compiled once in its own unit\n");
  return 0;
}
