// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_MODEL_SPILL_RECORDS_HPP
#define REPLICANT_MODEL_SPILL_RECORDS_HPP

/// @file
/// The record format of spilled changes, over any policy's spill_part: the assembler appends one
/// record per change, a subtransaction abort cuts whole records off the end, and a transaction's
/// change_range reads them back in order. The part only stores bytes, so a user's policy gets the
/// format for free and cannot get it wrong. Not API: its names are replicant::detail. The header
/// stands outside detail/ because two components share it, and a component's detail/ is its own.
//
// Record: op (1 byte), old tuple kind (1), flags (1: truncate cascade, 2: restart identity), 1 spare,
// relation index (u32), record length (u32), old length (u32), then the two TupleData wire images
// (host byte order: a record never leaves the process that wrote it).

#include <replicant/core/error.hpp>
#include <replicant/core/result.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/spill_part.hpp>
#include <replicant/model/tuple.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace replicant::detail {

inline constexpr std::size_t spill_record_header_size = 16;
// How much a reader asks its part for at once.
inline constexpr std::size_t spill_read_size = 256 * 1024;

inline auto spill_put32(std::byte* at, std::uint32_t v) noexcept -> void { std::memcpy(at, &v, sizeof v); }
inline auto spill_get32(const std::byte* at) noexcept -> std::uint32_t {
  std::uint32_t v = 0;
  std::memcpy(&v, at, sizeof v);
  return v;
}

// Appends the record of change c, whose relation is the transaction's relations[relation_index].
inline auto append_spill_record(spill_part& part, const change& c, std::uint32_t relation_index) -> result<void> {
  const auto record = c.record_tuple().wire();
  const auto old = c.old_tuple().wire();
  std::byte header[spill_record_header_size]{};
  header[0] = static_cast<std::byte>(c.op());
  header[1] = static_cast<std::byte>(c.old_kind());
  header[2] = static_cast<std::byte>((c.truncate_cascade() ? 1U : 0U) | (c.truncate_restart_identity() ? 2U : 0U));
  spill_put32(header + 4, relation_index);
  spill_put32(header + 8, static_cast<std::uint32_t>(record.size()));
  spill_put32(header + 12, static_cast<std::uint32_t>(old.size()));
  if (auto a = part.append(header); !a) return a;
  if (!record.empty()) {
    if (auto a = part.append(record); !a) return a;
  }
  if (!old.empty()) {
    if (auto a = part.append(old); !a) return a;
  }
  return {};
}

// Reads the records of a part back in order, through a buffer. The tuples of a record view the
// buffer: valid until the next call. The part must have been flushed.
class spill_reader {
 public:
  spill_reader() = default;
  spill_reader(const spill_part* part, std::size_t records) noexcept : part_(part), left_(records) {}

  // One record's parts.
  struct record {
    change_op op{};
    old_tuple_kind old_kind{};
    bool cascade = false;
    bool restart_identity = false;
    std::uint32_t relation_index = 0;
    tuple_data new_tuple;
    tuple_data old_tuple;
  };

  // The next record into out; false after the last one. errc::io_failed from the part, or
  // errc::decode_failure for bytes that are not records (the part ends inside one, ...).
  auto next(record& out) -> result<bool> {
    if (left_ == 0) return false;
    auto header = take(spill_record_header_size);
    if (!header) return unexpected(header.error());
    const std::byte* h = *header;
    const auto record_len = spill_get32(h + 8);
    const auto old_len = spill_get32(h + 12);
    out.op = static_cast<change_op>(h[0]);
    out.old_kind = static_cast<old_tuple_kind>(h[1]);
    out.cascade = (static_cast<unsigned>(h[2]) & 1U) != 0;
    out.restart_identity = (static_cast<unsigned>(h[2]) & 2U) != 0;
    out.relation_index = spill_get32(h + 4);
    auto body = take(std::size_t{record_len} + old_len);
    if (!body) return unexpected(body.error());
    out.new_tuple = {};
    out.old_tuple = {};
    if (record_len > 0) {
      auto t = parse_tuple_data({*body, record_len});
      if (!t) return unexpected(t.error());
      out.new_tuple = *t;
    }
    if (old_len > 0) {
      auto t = parse_tuple_data({*body + record_len, old_len});
      if (!t) return unexpected(t.error());
      out.old_tuple = *t;
    }
    --left_;
    return true;
  }

  // Moves past the next record without decoding it.
  auto skip() -> result<void> {
    auto header = take(spill_record_header_size);
    if (!header) return unexpected(header.error());
    auto body = take(std::size_t{spill_get32(*header + 8)} + spill_get32(*header + 12));
    if (!body) return unexpected(body.error());
    --left_;
    return {};
  }

  // Where the next record starts in the part.
  [[nodiscard]] auto offset() const noexcept -> std::uint64_t { return read_ - (end_ - begin_); }

 private:
  // The next n bytes of the part, contiguous in the buffer until the next take().
  auto take(std::size_t n) -> result<const std::byte*> {
    if (end_ - begin_ < n) {
      // Move the unread rest to the front, then read at least what is missing.
      if (end_ > begin_) std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
      end_ -= begin_;
      begin_ = 0;
      if (buffer_.size() < std::max(n, spill_read_size)) buffer_.resize(std::max(n, spill_read_size));
      const std::uint64_t size = part_->size();
      while (end_ < n) {
        const auto want = std::min<std::uint64_t>(buffer_.size() - end_, size - std::min(read_, size));
        if (want == 0) return fail(errc::decode_failure);  // the part ends inside a record
        auto got = part_->read(read_, std::span{buffer_.data() + end_, static_cast<std::size_t>(want)});
        if (!got) return unexpected(got.error());
        if (*got == 0 || *got > want) return fail(errc::io_failed);  // a part that breaks its contract
        end_ += *got;
        read_ += *got;
      }
    }
    const std::byte* at = buffer_.data() + begin_;
    begin_ += n;
    return at;
  }

  const spill_part* part_ = nullptr;
  std::uint64_t read_ = 0;  // bytes read from the part
  std::size_t left_ = 0;    // records not yet read
  std::vector<std::byte> buffer_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
};

// Keeps only the first keep of the part's records records (a streamed subtransaction aborted). Finds
// where record keep starts by reading the headers: rare enough not to keep an offset per record.
inline auto truncate_spill_records(spill_part& part, std::size_t records, std::size_t keep) -> result<void> {
  if (keep >= records) return {};
  if (auto f = part.flush(); !f) return f;
  spill_reader reader{&part, records};
  for (std::size_t i = 0; i < keep; ++i) {
    if (auto s = reader.skip(); !s) return s;
  }
  return part.truncate(reader.offset());
}

}  // namespace replicant::detail

#endif  // REPLICANT_MODEL_SPILL_RECORDS_HPP
