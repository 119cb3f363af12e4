// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// Fuzzes the replication framing: replicant::parse_copy_data on arbitrary bytes (one CopyData
// payload), and replicant::parse_status_update on the same bytes.
//
// Properties, besides the sanitizers':
// - an XLogData's `data` is exactly the payload after its 25-byte header, and a keepalive is
//   exactly 18 bytes; anything else is decode_failure, and value-free (fuzz::check_error);
// - a parsed status update encodes back to the same 34 bytes, up to what parsing normalises (a
//   nonzero reply byte reads as "yes", and a clock past the representable range saturates);
// - the plugin payload of an XLogData decodes without incident in the most permissive pgoutput
//   configuration (protocol 4, parallel streaming), so that this target also reaches the decoder.
#include <replicant/wire/framing.hpp>

#include <replicant/decoder/pgoutput_reader.hpp>

#include "fuzz_common.hpp"

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <variant>

namespace {

using namespace replicant;

auto fuzz_copy_data(std::span<const std::byte> payload) -> void {
  const auto parsed = parse_copy_data(payload);
  if (!parsed) {
    fuzz::check_error(parsed.error());
    REPLICANT_FUZZ_CHECK(parsed.error() == errc::decode_failure);
    return;
  }
  if (const auto* w = std::get_if<xlog_data>(&*parsed)) {
    REPLICANT_FUZZ_CHECK(payload[0] == std::byte{'w'} && payload.size() >= xlog_data_header_size);
    REPLICANT_FUZZ_CHECK(w->data.data() == payload.data() + xlog_data_header_size);
    REPLICANT_FUZZ_CHECK(w->data.size() == payload.size() - xlog_data_header_size);
    REPLICANT_FUZZ_CHECK(w->data_start.value() == detail::load_big_endian<8>(payload.data() + 1));
    pgoutput_reader decoder{{4, pgoutput_streaming::parallel}};
    pgoutput::message message;
    if (const std::error_code ec = decoder.decode(w->data, message)) fuzz::check_error(ec);
  } else {
    const auto& k = std::get<primary_keepalive>(*parsed);
    REPLICANT_FUZZ_CHECK(payload[0] == std::byte{'k'} && payload.size() == primary_keepalive_size);
    REPLICANT_FUZZ_CHECK(k.reply_requested == (payload[17] != std::byte{0}));
  }
}

auto fuzz_status_update(std::span<const std::byte> bytes) -> void {
  const auto parsed = parse_status_update(bytes);
  if (!parsed) {
    fuzz::check_error(parsed.error());
    return;
  }
  REPLICANT_FUZZ_CHECK(bytes.size() == standby_status_update_size);
  const auto encoded = encode_status_update(*parsed);
  // The clock round-trips unless it was past what sys_microseconds holds and saturated.
  const auto clock = static_cast<std::int64_t>(detail::load_big_endian<8>(bytes.data() + 25));
  const bool saturated = clock > std::numeric_limits<std::int64_t>::max() - postgres_epoch_offset.count();
  for (std::size_t i = 0; i < 25; ++i) REPLICANT_FUZZ_CHECK(encoded[i] == bytes[i]);
  if (!saturated) {
    for (std::size_t i = 25; i < 33; ++i) REPLICANT_FUZZ_CHECK(encoded[i] == bytes[i]);
  }
  REPLICANT_FUZZ_CHECK(encoded[33] == std::byte{static_cast<unsigned char>(bytes[33] != std::byte{0} ? 1 : 0)});
}

}  // namespace

extern "C" auto LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) -> int {
  fuzz::begin_input();
  const std::span<const std::byte> bytes{reinterpret_cast<const std::byte*>(data), size};
  fuzz_copy_data(bytes);
  fuzz_status_update(bytes);
  return 0;
}
