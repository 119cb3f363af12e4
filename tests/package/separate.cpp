// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The separately compiled mode from the installed package (README.md, "A program of many units"):
// this unit and separate_src.cpp are built with REPLICANT_SEPARATE_COMPILATION, so the pgoutput
// decoder is only declared here and linked from separate_src.cpp's <replicant/src.hpp>.
#include <replicant/pipeline.hpp>

#include <array>
#include <cstddef>
#include <cstdio>
#include <variant>

#if !defined(REPLICANT_SEPARATE_COMPILATION)
#error "this consumer is built in the separately compiled mode"
#endif

auto main() -> int {
  // A Begin message: 'B', final LSN 0/16B3748, commit time 0, xid 771.
  constexpr std::array<unsigned char, 21> begin{'B', 0, 0, 0, 0, 0x01, 0x6B, 0x37, 0x48, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0x03};
  std::array<std::byte, begin.size()> bytes{};
  for (std::size_t i = 0; i < begin.size(); ++i) bytes[i] = static_cast<std::byte>(begin[i]);
  replicant::pgoutput_decoder decoder{replicant::pgoutput_options{.publications = {"p"}}};
  const auto message = decoder.decode(bytes);
  if (!message || !std::holds_alternative<replicant::pgoutput::begin_message>(*message)) return 1;
  std::printf("the pgoutput decoder, compiled once in its own unit\n");
  return 0;
}
