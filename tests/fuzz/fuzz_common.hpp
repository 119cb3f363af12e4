// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_FUZZ_FUZZ_COMMON_HPP
#define REPLICANT_TESTS_FUZZ_FUZZ_COMMON_HPP

// What the fuzz targets share: the layout of their inputs (which the seed generator writes too, so
// the two cannot drift apart), the properties every target checks, and the routines that touch
// every byte of a decoded value so that the sanitizers see each read.
//
// A target reports a broken property by printing what broke and aborting, which libFuzzer records
// as a crash with the input that caused it.

#include <replicant/core/error.hpp>
#include <replicant/decoder/pgoutput.hpp>
#include <replicant/model/cast.hpp>
#include <replicant/model/change.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/value.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <variant>

/// Aborts with the failed condition when @p cond is false; a libFuzzer crash with a reproducer.
#define REPLICANT_FUZZ_CHECK(cond)                                              \
  do {                                                                          \
    if (!(cond)) ::replicant::fuzz::property_failed(#cond, __FILE__, __LINE__); \
  } while (false)

namespace replicant::fuzz {

[[noreturn]] inline auto property_failed(const char* what, const char* file, int line) -> void {
  std::fprintf(stderr, "fuzz property failed: %s (%s:%d)\n", what, file, line);
  std::abort();
}

// --- input layouts --------------------------------------------------------------------------------

/// Every protocol/streaming combination pgoutput accepts, indexed by the low three bits of a
/// target's first input byte.
inline constexpr std::array<pgoutput_protocol, 8> protocols = {{
    {1, pgoutput_streaming::off},
    {2, pgoutput_streaming::off},
    {2, pgoutput_streaming::on},
    {3, pgoutput_streaming::off},
    {3, pgoutput_streaming::on},
    {4, pgoutput_streaming::off},
    {4, pgoutput_streaming::on},
    {4, pgoutput_streaming::parallel},
}};

/// The selector index of @p p in `protocols`.
[[nodiscard]] constexpr auto protocol_index(pgoutput_protocol p) noexcept -> std::uint8_t {
  for (std::size_t i = 0; i < protocols.size(); ++i) {
    if (protocols[i].version == p.version && protocols[i].streaming == p.streaming) return static_cast<std::uint8_t>(i);
  }
  return 0;
}

/// Every type OID of pg_type.hpp, plus types replicant does not cast (a user type, `point`, `box[]`,
/// and 0): the cast target picks its OID from this table, and
/// the message target describes one single-column relation per entry, whose relation OID is the
/// type OID itself, so that mutating a change's relation OID changes the type being cast.
inline constexpr std::array<std::uint32_t, 54> cast_oids = {
    pg_type::boolean,
    pg_type::bytea,
    pg_type::internal_char,
    pg_type::name,
    pg_type::int8,
    pg_type::int2,
    pg_type::int4,
    pg_type::text,
    pg_type::oid,
    pg_type::json,
    pg_type::xml,
    pg_type::float4,
    pg_type::float8,
    pg_type::money,
    pg_type::bpchar,
    pg_type::varchar,
    pg_type::date,
    pg_type::time,
    pg_type::timestamp,
    pg_type::timestamptz,
    pg_type::interval,
    pg_type::timetz,
    pg_type::numeric,
    pg_type::uuid,
    pg_type::jsonb,
    pg_type::boolean_array,
    pg_type::bytea_array,
    pg_type::internal_char_array,
    pg_type::name_array,
    pg_type::int2_array,
    pg_type::int4_array,
    pg_type::text_array,
    pg_type::bpchar_array,
    pg_type::varchar_array,
    pg_type::int8_array,
    pg_type::float4_array,
    pg_type::float8_array,
    pg_type::oid_array,
    pg_type::timestamp_array,
    pg_type::date_array,
    pg_type::time_array,
    pg_type::timestamptz_array,
    pg_type::interval_array,
    pg_type::numeric_array,
    pg_type::timetz_array,
    pg_type::json_array,
    pg_type::xml_array,
    pg_type::money_array,
    pg_type::uuid_array,
    pg_type::jsonb_array,
    90'001,  // a user-defined type (described by a Type message in the message target)
    600,     // point: built in, but not cast
    1020,    // box[]: the array whose delimiter is ';'
    0,       // no type at all
};

/// The index of @p oid in `cast_oids` (the seed generator's inverse of the targets' lookup).
[[nodiscard]] constexpr auto cast_oid_index(std::uint32_t oid) noexcept -> std::uint8_t {
  for (std::size_t i = 0; i < cast_oids.size(); ++i) {
    if (cast_oids[i] == oid) return static_cast<std::uint8_t>(i);
  }
  return static_cast<std::uint8_t>(cast_oids.size() - 1);
}

/// The user-defined type OID above, and a wide relation with one column per entry of `cast_oids`.
inline constexpr std::uint32_t user_type_oid = 90'001;
inline constexpr std::uint32_t wide_relation_oid = 16'384;
/// A three-column relation (`id int4` key, `customer text`, `amount numeric`).
inline constexpr std::uint32_t orders_relation_oid = 16'385;

/// A marker the seed generator puts into row values, names, prefixes and gids: it must never show
/// up in an error message.
inline constexpr std::string_view marker = "Zq7#Vx9!";

/**
 * The chunks of a stream target's input, after its session byte (byte 0): each a big-endian u16
 * length and that many bytes, the last cut short at the end of the input. A chunk of length 0 is a
 * reconnect. Each other chunk is copied into a heap buffer of exactly its size, which release()
 * (or the end of the chunk) overwrites and frees, so that AddressSanitizer reports any view kept
 * into a payload instead of a copy.
 */
class chunk_reader {
 public:
  /// One chunk, in a heap buffer of its own.
  class chunk {
   public:
    chunk(const std::uint8_t* from, std::size_t length)
        : bytes_(length == 0 ? nullptr : std::make_unique<std::byte[]>(length)), length_(length) {
      if (length != 0) std::memcpy(bytes_.get(), from, length);
    }
    chunk(chunk&&) noexcept = default;
    auto operator=(chunk&&) noexcept -> chunk& = default;
    ~chunk() { release(); }

    /// A reconnect (length 0).
    [[nodiscard]] auto reconnect() const noexcept -> bool { return length_ == 0; }
    /// The payload; valid until release().
    [[nodiscard]] auto bytes() const noexcept -> std::span<const std::byte> { return {bytes_.get(), length_}; }
    /// Overwrites and frees the payload: what still reads it is a use after free.
    auto release() noexcept -> void {
      if (!bytes_) return;
      std::memset(bytes_.get(), 0xEE, length_);
      bytes_.reset();
    }

   private:
    std::unique_ptr<std::byte[]> bytes_;
    std::size_t length_;
  };

  chunk_reader(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  /// The next chunk, or nothing at the end of the input.
  [[nodiscard]] auto next() -> std::optional<chunk> {
    if (size_ - at_ < 2) return std::nullopt;
    std::size_t length = (std::size_t{data_[at_]} << 8U) | data_[at_ + 1];
    at_ += 2;
    length = std::min(length, size_ - at_);
    std::optional<chunk> c{std::in_place, data_ + at_, length};
    at_ += length;
    return c;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 1;
};

// --- properties -----------------------------------------------------------------------------------

// Keeps the compiler from discarding the reads below as dead code.
inline volatile std::uint64_t digest_sink = 0;

inline auto mix(std::uint64_t& h, std::uint64_t v) noexcept -> void { h = (h ^ v) * 0x100000001B3ULL; }

inline auto mix(std::uint64_t& h, std::span<const std::byte> bytes) noexcept -> void {
  for (const std::byte b : bytes) mix(h, std::to_integer<std::uint64_t>(b));
}

inline auto mix(std::uint64_t& h, std::string_view s) noexcept -> void {
  for (const char c : s) mix(h, static_cast<unsigned char>(c));
}

// Whether @p needle occurs in @p haystack. Deliberately a plain loop compiled without coverage
// instrumentation: through memcmp or memmem, or with comparison tracing, libFuzzer would learn the
// error messages' bytes from the checks below and feed them back into inputs.
#if defined(__clang__)
__attribute__((no_sanitize("coverage")))
#endif
inline auto
occurs_in(std::string_view needle, std::string_view haystack) noexcept -> bool {
  const char* const n = needle.data();
  const char* const h = haystack.data();
  const std::size_t m = needle.size();
  if (m == 0) return true;
  if (m > haystack.size()) return false;
  for (std::size_t at = 0; at + m <= haystack.size(); ++at) {
    if (h[at] != n[0]) continue;
    std::size_t i = 1;
    while (i < m && h[at + i] == n[i]) ++i;
    if (i == m) return true;
  }
  return false;
}

// The first message seen for each code, over the whole run: a message must never change with the
// input. Bit n of `checked` marks replicant code n as verified for the current input (bit 63: any
// other code), because the outcome cannot change within one input.
struct seen_messages {
  std::array<std::string, 64> first{};
  std::uint64_t known = 0;
  std::uint64_t checked = 0;
};
inline seen_messages seen{};

/// Call first in every LLVMFuzzerTestOneInput.
inline auto begin_input() noexcept -> void { seen.checked = 0; }

/// Value-freedom of an error. It is a replicant code (or the one generic code a decoder may report,
/// running out of memory), and its message is a function of the code alone: identical for every
/// input that produced the code, and free of the marker the seeds put into values and names.
/// (Looking for runs of input bytes in the message instead gives false alarms: seeds from captured
/// sessions carry English text, from which the fuzzer assembles the messages' own words.)
inline auto check_error(std::error_code ec) -> void {
  REPLICANT_FUZZ_CHECK(ec);
  const bool ours = ec.category() == replicant::error_category() && ec.value() >= 1 &&
                    ec.value() <= static_cast<int>(errc::lsn_missing);  // the last code
  REPLICANT_FUZZ_CHECK(ours || ec == std::errc::not_enough_memory);
  const unsigned slot = ours ? static_cast<unsigned>(ec.value()) : 63U;
  const std::uint64_t bit = std::uint64_t{1} << slot;
  if ((seen.checked & bit) != 0) return;
  seen.checked |= bit;
  std::string message = ec.message();
  REPLICANT_FUZZ_CHECK(!message.empty() && !occurs_in(marker, message));
  if ((seen.known & bit) == 0) {
    seen.known |= bit;
    seen.first[slot] = std::move(message);
    return;
  }
  const std::string& first = seen.first[slot];
  REPLICANT_FUZZ_CHECK(message.size() == first.size() && occurs_in(first, message));
}

// --- touching values ------------------------------------------------------------------------------

inline auto touch(const value& v) -> std::uint64_t;

// Every accessor of every alternative, so each one runs on whatever the casts produced.
inline auto touch_alternative(const value& v, std::uint64_t& h) -> void {
  v.visit([&h](const auto& x) {
    using T = std::decay_t<decltype(x)>;
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::int64_t>) {
      mix(h, static_cast<std::uint64_t>(x));
    } else if constexpr (std::is_same_v<T, double>) {
      std::uint64_t bits = 0;
      std::memcpy(&bits, &x, sizeof bits);
      mix(h, bits);
    } else if constexpr (std::is_same_v<T, numeric>) {
      mix(h, x.view());
      mix(h, static_cast<std::uint64_t>(x.is_nan()) + 2 * static_cast<std::uint64_t>(x.is_infinite()) +
                 4 * static_cast<std::uint64_t>(x.is_finite()) + 8 * static_cast<std::uint64_t>(x.is_negative()));
      mix(h, x.scale());
      const double d = x.to_double();
      std::uint64_t bits = 0;
      std::memcpy(&bits, &d, sizeof bits);
      mix(h, bits);
      if (const auto i = x.to_int64()) mix(h, static_cast<std::uint64_t>(*i));
      // A numeric is equal to itself and ordered consistently with equality.
      REPLICANT_FUZZ_CHECK(x == x && (x <=> x) == 0);
    } else if constexpr (std::is_same_v<T, text> || std::is_same_v<T, json>) {
      mix(h, x.view());
    } else if constexpr (std::is_same_v<T, bytea>) {
      mix(h, x.bytes());
    } else if constexpr (std::is_same_v<T, date>) {
      mix(h, static_cast<std::uint64_t>(x.year()) + x.month() + x.day());
      if (const auto days = x.to_sys_days()) mix(h, static_cast<std::uint64_t>(days->time_since_epoch().count()));
      REPLICANT_FUZZ_CHECK(x.is_finite() == x.to_sys_days().has_value());
    } else if constexpr (std::is_same_v<T, time_of_day>) {
      mix(h, static_cast<std::uint64_t>(x.hour() + x.minute() + x.second() + x.microsecond()));
      mix(h, static_cast<std::uint64_t>(x.to_duration().count()));
    } else if constexpr (std::is_same_v<T, timestamp> || std::is_same_v<T, timestamptz>) {
      mix(h, static_cast<std::uint64_t>(x.date_part().days_since_2000()));
      mix(h, static_cast<std::uint64_t>(x.time_part().micros_since_midnight()));
      if constexpr (T::has_time_zone) {
        if (const auto at = x.to_sys_time()) mix(h, static_cast<std::uint64_t>(at->time_since_epoch().count()));
      } else {
        if (const auto at = x.to_local_time()) mix(h, static_cast<std::uint64_t>(at->time_since_epoch().count()));
      }
    } else if constexpr (std::is_same_v<T, uuid>) {
      for (const std::uint8_t b : x.bytes()) mix(h, b);
    } else if constexpr (std::is_same_v<T, array>) {
      mix(h, x.dimensions());
      mix(h, static_cast<std::uint64_t>(x.lower_bound()));
      for (std::size_t i = 0; i < x.size(); ++i) mix(h, touch(x[i]));
    } else {
      static_assert(std::is_same_v<T, null_t>);
    }
  });
}

/// Reads all of @p v, renders it, and checks the copy and ownership laws of replicant::value:
/// a value equals itself, a copy, and a copy made independent with own().
inline auto touch(const value& v) -> std::uint64_t {
  std::uint64_t h = 0xCBF29CE484222325ULL;
  mix(h, static_cast<std::uint64_t>(v.kind()));
  touch_alternative(v, h);
  const std::string shown = to_string(v);
  mix(h, shown);
  REPLICANT_FUZZ_CHECK(v == v);
  value owned = v;
  owned.own();
  REPLICANT_FUZZ_CHECK(owned == v);
  REPLICANT_FUZZ_CHECK(to_string(owned) == shown);
  return h;
}

/// Reads every field of a row the decoder produced, typing each by its column's OID.
inline auto touch_row(const relation_info& relation, replicant::tuple_data data) -> std::uint64_t {
  std::uint64_t h = 0;
  REPLICANT_FUZZ_CHECK(data.size() == relation.columns.size());
  std::size_t fields = 0;
  std::size_t unchanged = 0;
  for (const field f : row{relation, data}) {
    ++fields;
    mix(h, f.name());
    mix(h, f.raw().bytes);
    if (f.is_unchanged()) ++unchanged;
    const auto v = f.value();
    if (v) {
      REPLICANT_FUZZ_CHECK(!f.is_unchanged());
      REPLICANT_FUZZ_CHECK(f.is_null() == v->is_null());
      mix(h, touch(*v));
    } else {
      check_error(v.error());
      REPLICANT_FUZZ_CHECK(v.error() == (f.is_unchanged() ? errc::column_unchanged : errc::decode_failure));
    }
  }
  REPLICANT_FUZZ_CHECK(fields == data.size());
  REPLICANT_FUZZ_CHECK(unchanged == data.unchanged_toast_count());
  // The wire form of a validated tuple parses again to the same tuple.
  const auto again = replicant::parse_tuple_data(data.wire());
  REPLICANT_FUZZ_CHECK(again && again->size() == data.size() && again->wire().size() == data.wire().size());
  return h;
}

}  // namespace replicant::fuzz

#endif  // REPLICANT_TESTS_FUZZ_FUZZ_COMMON_HPP
