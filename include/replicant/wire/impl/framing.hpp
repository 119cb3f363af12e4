// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_WIRE_IMPL_FRAMING_HPP
#define REPLICANT_WIRE_IMPL_FRAMING_HPP

// Out-of-line bodies of the replication framing: the standby status update's parser, which tests
// and tools use and the stream never does. Included at the bottom of <replicant/wire/framing.hpp>
// (which it includes nothing of back); with REPLICANT_SEPARATE_COMPILATION only by
// <replicant/wire/src.hpp>, so that it is compiled once. The per-frame parser, parse_copy_data,
// stays in the public header, inline where the engine reads each frame.

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/detail/config.hpp>
#include <replicant/core/error.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/result.hpp>

#include <cstddef>
#include <span>

namespace replicant {

REPLICANT_DECL auto parse_status_update(std::span<const std::byte> bytes) noexcept -> result<standby_status_update> {
  detail::byte_reader in{bytes};
  if (in.u8() != 'r') return fail(errc::decode_failure);
  standby_status_update out;
  out.write = lsn{in.u64()};
  out.flush = lsn{in.u64()};
  out.apply = lsn{in.u64()};
  out.clock = from_postgres_time(in.i64());
  out.reply_requested = in.u8() != 0;
  if (!in.finished()) return fail(errc::decode_failure);
  return out;
}

}  // namespace replicant

#endif  // REPLICANT_WIRE_IMPL_FRAMING_HPP
