// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Built against the installed tree by the replicant.package.* tests: the wal2json decoder through
// the package's wal2json component (replicant::wal2json), which brings the JSON parser along.
#include <replicant/decoder/wal2json.hpp>

#include <cstddef>
#include <cstdio>
#include <span>
#include <string_view>

auto main() -> int {
  // A Begin of wal2json's format-version 2 becomes one pgoutput Begin message.
  constexpr std::string_view begin =
      R"({"action":"B","xid":771,"lsn":"0/1A2B3C4","nextlsn":"0/1A2B400","timestamp":"2026-01-02 03:04:05.678+00"})";
  replicant::wal2json_decoder decoder;
  int messages = 0;
  const auto translated = decoder.translate(std::as_bytes(std::span{begin.data(), begin.size()}),
                                            [&](std::span<const std::byte> m) -> replicant::result<void> {
                                              if (!m.empty() && m[0] == std::byte{'B'}) ++messages;
                                              return {};
                                            });
  if (!translated || messages != 1 || !decoder.in_transaction()) return 1;
  std::printf("wal2json decoder from the installed package\n");
  return 0;
}
