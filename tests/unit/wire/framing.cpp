// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/wire/framing.hpp>

#include <boost/test/unit_test.hpp>

#include <support/wire/pgoutput_builder.hpp>

#include <chrono>
#include <cstdint>
#include <limits>
#include <variant>

BOOST_AUTO_TEST_SUITE(wire_framing_tests)

using namespace std::chrono_literals;
using replicant::lsn;
namespace t = replicant::test;

namespace {

constexpr std::int64_t captured_send_us = 0x0003046968881820;  // 2026-11-29 13:55:01.958688 UTC

auto utc(int y, unsigned m, unsigned d) -> replicant::sys_microseconds {
  return std::chrono::sys_days{std::chrono::year{y} / std::chrono::month{m} / std::chrono::day{d}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(timestamps)

BOOST_AUTO_TEST_CASE(postgres_epoch_is_2000_01_01_utc) {
  BOOST_TEST((replicant::from_postgres_time(0) == utc(2000, 1, 1)));  // time points do not print
  BOOST_TEST(replicant::to_postgres_time(utc(2000, 1, 1)) == 0);
  BOOST_TEST(replicant::to_postgres_time(replicant::sys_microseconds{}) == -946'684'800'000'000);
  static_assert(replicant::from_postgres_time(-946'684'800'000'000).time_since_epoch().count() == 0);
}

BOOST_AUTO_TEST_CASE(converts_the_captured_send_time) {
  // PROTOCOL.md §9: 0x0003046968881820 µs after 2000-01-01 is 2026-11-29 13:55:01.958688 UTC.
  const auto at = replicant::from_postgres_time(captured_send_us);
  BOOST_TEST((std::chrono::floor<std::chrono::days>(at) == utc(2026, 11, 29)));
  BOOST_TEST((at - std::chrono::floor<std::chrono::days>(at) == 13h + 55min + 1s + 958688us));
  BOOST_TEST(replicant::to_postgres_time(at) == captured_send_us);
}

BOOST_AUTO_TEST_CASE(round_trips_and_truncates_sub_microseconds) {
  for (std::int64_t v :
       {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1}, captured_send_us, std::int64_t{-123456789}}) {
    BOOST_TEST(replicant::to_postgres_time(replicant::from_postgres_time(v)) == v);
  }
  const std::chrono::sys_time<std::chrono::nanoseconds> ns = utc(2000, 1, 1) + 1500ns;
  BOOST_TEST(replicant::to_postgres_time(ns) == 1);
  const std::chrono::sys_time<std::chrono::nanoseconds> before = utc(2000, 1, 1) - 1ns;
  BOOST_TEST(replicant::to_postgres_time(before) == -1);  // floor, toward the past
}

BOOST_AUTO_TEST_CASE(saturates_instead_of_overflowing) {
  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  constexpr auto min = std::numeric_limits<std::int64_t>::min();
  BOOST_TEST((replicant::from_postgres_time(max) == replicant::sys_microseconds::max()));
  BOOST_TEST((replicant::from_postgres_time(max - 946'684'800'000'000).time_since_epoch().count() == max));
  BOOST_TEST(replicant::from_postgres_time(min).time_since_epoch().count() == min + 946'684'800'000'000);
  BOOST_TEST(replicant::to_postgres_time(replicant::sys_microseconds::min()) == min);
  BOOST_TEST(replicant::to_postgres_time(replicant::sys_microseconds::max()) == max - 946'684'800'000'000);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(copy_data)

BOOST_AUTO_TEST_CASE(parses_the_captured_keepalive) {
  const auto frame = t::hex("6b 00000000050274b0 0003046968881686 00");
  BOOST_TEST_REQUIRE(frame.size() == replicant::primary_keepalive_size);
  const auto msg = replicant::parse_copy_data(frame);
  BOOST_TEST_REQUIRE(msg.has_value());
  const auto* k = std::get_if<replicant::primary_keepalive>(&*msg);
  BOOST_TEST_REQUIRE(k != nullptr);
  BOOST_TEST(k->wal_end == lsn{0x50274B0});
  BOOST_TEST(replicant::to_postgres_time(k->send_time) == 0x0003046968881686);
  BOOST_TEST(!k->reply_requested);
}

BOOST_AUTO_TEST_CASE(reads_reply_requested) {
  for (int flag : {1, 2, 255}) {
    auto frame = t::keepalive(lsn{7}, 0, true);
    frame.back() = static_cast<std::byte>(flag);
    const auto msg = replicant::parse_copy_data(frame);
    BOOST_TEST_REQUIRE(msg.has_value());
    BOOST_TEST(std::get<replicant::primary_keepalive>(*msg).reply_requested);
  }
}

BOOST_AUTO_TEST_CASE(parses_the_captured_xlog_data_as_a_view) {
  const auto frame = t::hex(
      "77 00000000050274d0 00000000050274d0 0003046968881820"
      "42 0000000005027550 0003046968881401 00000333");
  const auto msg = replicant::parse_copy_data(frame);
  BOOST_TEST_REQUIRE(msg.has_value());
  const auto* w = std::get_if<replicant::xlog_data>(&*msg);
  BOOST_TEST_REQUIRE(w != nullptr);
  BOOST_TEST(w->data_start == lsn{0x50274D0});
  BOOST_TEST(w->wal_end == lsn{0x50274D0});
  BOOST_TEST(replicant::to_postgres_time(w->send_time) == captured_send_us);
  BOOST_TEST(w->data.size() == 21U);
  BOOST_TEST(w->data.data() == frame.data() + replicant::xlog_data_header_size);  // zero-copy
  BOOST_TEST(static_cast<char>(w->data[0]) == 'B');
}

BOOST_AUTO_TEST_CASE(accepts_xlog_data_with_an_empty_message) {
  const auto frame = t::xlog(lsn{1}, 2, {});
  const auto msg = replicant::parse_copy_data(frame);
  BOOST_TEST_REQUIRE(msg.has_value());
  BOOST_TEST(std::get<replicant::xlog_data>(*msg).data.empty());
}

BOOST_AUTO_TEST_CASE(rejects_every_truncated_header) {
  const auto w = t::xlog(lsn{0x10}, captured_send_us, t::hex("45"));
  for (std::size_t n = 0; n < replicant::xlog_data_header_size; ++n) {
    BOOST_TEST_CONTEXT("w prefix " << n) {
      const auto r = replicant::parse_copy_data(std::span{w}.first(n));
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == replicant::errc::decode_failure);
    }
  }
  const auto k = t::keepalive(lsn{0x10}, captured_send_us, true);
  for (std::size_t n = 0; n < k.size(); ++n) {
    BOOST_TEST_CONTEXT("k prefix " << n) {
      const auto r = replicant::parse_copy_data(std::span{k}.first(n));
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == replicant::errc::decode_failure);
    }
  }
}

BOOST_AUTO_TEST_CASE(rejects_a_keepalive_with_trailing_bytes) {
  auto k = t::keepalive(lsn{0x10}, captured_send_us, false);
  k.push_back(std::byte{0});
  const auto r = replicant::parse_copy_data(k);
  BOOST_TEST_REQUIRE(!r.has_value());
  BOOST_TEST(r.error() == replicant::errc::decode_failure);
}

BOOST_AUTO_TEST_CASE(rejects_unknown_message_types) {
  for (int type = 0; type < 256; ++type) {
    if (type == 'w' || type == 'k') continue;
    t::bytes frame = t::keepalive(lsn{1}, 1, false);
    frame[0] = static_cast<std::byte>(type);
    const auto r = replicant::parse_copy_data(frame);
    BOOST_TEST_CONTEXT("type " << type) {
      BOOST_TEST_REQUIRE(!r.has_value());
      BOOST_TEST(r.error() == replicant::errc::decode_failure);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(standby_status_update)

BOOST_AUTO_TEST_CASE(encodes_the_34_byte_layout) {
  const replicant::standby_status_update update{
      .write = lsn{0x0102030405060708},
      .flush = lsn{0x50275C0},
      .apply = lsn{0x50275C0},
      .clock = replicant::from_postgres_time(captured_send_us),
      .reply_requested = true,
  };
  const auto out = replicant::encode_status_update(update);
  BOOST_TEST(out.size() == 34U);
  const auto expected = t::hex("72 0102030405060708 00000000050275c0 00000000050275c0 0003046968881820 01");
  BOOST_TEST(std::equal(out.begin(), out.end(), expected.begin(), expected.end()));

  std::array<std::byte, replicant::standby_status_update_size> buf{};
  replicant::encode_status_update({.flush = lsn{1}}, buf);
  BOOST_TEST(static_cast<char>(buf[0]) == 'r');
  BOOST_TEST(static_cast<int>(buf[16]) == 1);  // flush, last byte
  BOOST_TEST(static_cast<int>(buf[33]) == 0);  // reply not requested
}

BOOST_AUTO_TEST_CASE(round_trips_through_the_parser) {
  const replicant::standby_status_update update{lsn{11}, lsn{22}, lsn{33}, replicant::from_postgres_time(44), false};
  const auto bytes = replicant::encode_status_update(update);
  const auto back = replicant::parse_status_update(bytes);
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST(back->write == lsn{11});
  BOOST_TEST(back->flush == lsn{22});
  BOOST_TEST(back->apply == lsn{33});
  BOOST_TEST(replicant::to_postgres_time(back->clock) == 44);
  BOOST_TEST(!back->reply_requested);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    BOOST_TEST(!replicant::parse_status_update(std::span{bytes}.first(n)).has_value());
  }
}

BOOST_AUTO_TEST_CASE(is_usable_at_compile_time) {
  constexpr auto bytes = replicant::encode_status_update({.write = lsn{0xFF}});
  static_assert(bytes[0] == std::byte{'r'} && bytes[8] == std::byte{0xFF} && bytes[16] == std::byte{0});
  BOOST_TEST(bytes.size() == 34U);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // wire_framing_tests
