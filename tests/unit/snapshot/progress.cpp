// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The texts of the incremental snapshot: progress tokens, encoded keys, watermark contents and
// pg_current_snapshot() values, and what the reader does with a position.
#include <replicant/snapshot/detail/progress_codec.hpp>

#include <boost/test/unit_test.hpp>

#include <replicant/snapshot/incremental_worker.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

BOOST_AUTO_TEST_SUITE(snapshot_progress_tests)

using replicant::detail::snapshot_position;
using phase = replicant::detail::snapshot_position::phase;

namespace {

auto bytes(std::string_view s) -> std::vector<std::byte> {
  std::vector<std::byte> out;
  for (const char c : s) out.push_back(static_cast<std::byte>(c));
  return out;
}

auto table(std::string schema, std::string name) -> replicant::incremental_table {
  auto info = std::make_shared<replicant::relation_info>();
  info->schema = std::move(schema);
  info->table = std::move(name);
  return replicant::incremental_table{info, false, {0}};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(progress_token)

BOOST_AUTO_TEST_CASE(round_trips_every_phase_and_any_key_text) {
  const std::string_view parts[] = {"a:b", "line\nbreak", "it's \\ 5:3,", ""};
  const snapshot_position in_table{phase::table, "public", "Mixed Case", false, replicant::detail::encode_key(parts),
                                   12345,        678};
  for (const snapshot_position& p : {in_table, snapshot_position{phase::table, "s", "t", true, {}, 1, 1},
                                     snapshot_position{phase::arming, {}, {}, false, {}, 0, 0},
                                     snapshot_position{phase::complete, {}, {}, false, {}, 99, 0}}) {
    const auto token = replicant::detail::encode_position(p);
    const auto back = replicant::detail::decode_position(token);
    BOOST_TEST_REQUIRE(back.has_value());
    BOOST_TEST((*back == p));
  }
  const auto key = replicant::detail::decode_key(in_table.key);
  BOOST_TEST_REQUIRE(key.has_value());
  BOOST_TEST_REQUIRE(key->size() == 4U);
  BOOST_TEST((*key)[1] == "line\nbreak");
  BOOST_TEST((*key)[3].empty());
}

BOOST_AUTO_TEST_CASE(refuses_what_it_did_not_write) {
  const auto good = replicant::detail::encode_position({phase::table, "s", "t", false, {}, 1, 1});
  for (const std::string& bad :
       {std::string{}, std::string{"rbf1"}, good.substr(0, good.size() - 1), good + "x", std::string{"4:rbf2,1:C,1:0"},
        std::string{"4:rbf11:X1:0"}, std::string{"4:rbf11:C2:-1"}, std::string{"4:rbf11:T1:0"}}) {
    BOOST_TEST_CONTEXT("token " << bad.size() << " bytes") {
      const auto p = replicant::detail::decode_position(bad);
      BOOST_TEST(!p.has_value());
      if (!p) BOOST_TEST((p.error() == replicant::errc::store_mismatch));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(watermark)

BOOST_AUTO_TEST_CASE(round_trips_and_refuses_anything_else) {
  const replicant::detail::watermark w{0x0123'4567'89ab'cdefULL, 3, 42, false, 16384};
  const auto text = replicant::detail::format_watermark(w);
  BOOST_TEST(text == "0123456789abcdef/3/42/H/16384");
  const auto back = replicant::detail::parse_watermark(bytes(text));
  BOOST_TEST_REQUIRE(back.has_value());
  BOOST_TEST((*back == w));
  for (const std::string_view bad :
       {"", "0123456789abcdef/3/42/H", "0123456789abcdef/3/42/X/1", "0123456789ABCDEF/3/42/H/1",
        "0123456789abcde/3/42/H/1", "0123456789abcdef/3/42/H/1/", "0123456789abcdef/-3/42/H/1"}) {
    BOOST_TEST(!replicant::detail::parse_watermark(bytes(bad)).has_value(), bad);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(xid_snapshot)

BOOST_AUTO_TEST_CASE(parses_pg_current_snapshot_and_tells_what_it_saw) {
  const auto s = replicant::detail::xid_snapshot::parse("100:110:104,102");
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(s->sees(99));
  BOOST_TEST(s->sees(101));
  BOOST_TEST(!s->sees(102));
  BOOST_TEST(!s->sees(104));
  BOOST_TEST(s->sees(109));
  BOOST_TEST(!s->sees(110));
  BOOST_TEST(!s->sees(111));
  for (const std::string_view bad : {"", "1:2", "2:1:", "1:3:5", "1:3:2,", "a:3:", "1:3:2,,2"}) {
    BOOST_TEST(!replicant::detail::xid_snapshot::parse(bad).has_value(), bad);
  }
}

BOOST_AUTO_TEST_CASE(widens_32_bit_ids_next_to_the_snapshot_across_an_epoch) {
  // Epoch 1, just after the 32-bit counter wrapped: pgoutput sends the low 32 bits.
  const std::uint64_t epoch = std::uint64_t{1} << 32U;
  const auto s = replicant::detail::xid_snapshot::parse(std::to_string(epoch - 5) + ":" + std::to_string(epoch + 5) +
                                                        ":" + std::to_string(epoch - 2));
  BOOST_TEST_REQUIRE(s.has_value());
  BOOST_TEST(s->sees(0xFFFF'FFF0U));   // epoch 0, long before
  BOOST_TEST(!s->sees(0xFFFF'FFFEU));  // epoch 0, in progress
  BOOST_TEST(s->sees(3U));             // epoch 1, completed
  BOOST_TEST(!s->sees(6U));            // epoch 1, after xmax
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(position)

BOOST_AUTO_TEST_CASE(finds_its_table_by_name_and_moves_past_done_or_vanished_ones) {
  const std::vector<replicant::incremental_table> tables{table("a", "x"), table("b", "y"), table("c", "z")};
  using replicant::detail::normalize_position;
  auto [p, i] = normalize_position({phase::arming, {}, {}, false, {}, 0, 0}, tables);
  BOOST_TEST(i == 0U);
  BOOST_TEST(p.table == "x");
  std::tie(p, i) = normalize_position({phase::table, "b", "y", false, "3:key", 10, 4}, tables);
  BOOST_TEST(i == 1U);
  BOOST_TEST(p.key == "3:key");
  BOOST_TEST(p.table_rows == 4U);
  std::tie(p, i) = normalize_position({phase::table, "b", "y", true, "3:key", 10, 4}, tables);
  BOOST_TEST(i == 2U);
  BOOST_TEST(p.table == "z");
  BOOST_TEST(p.key.empty());
  BOOST_TEST(p.rows == 10U);
  BOOST_TEST(p.table_rows == 0U);
  std::tie(p, i) = normalize_position({phase::table, "b", "gone", false, "3:key", 10, 4}, tables);
  BOOST_TEST(i == 1U);  // dropped: the next table by name starts afresh
  BOOST_TEST(p.table == "y");
  BOOST_TEST(p.key.empty());
  std::tie(p, i) = normalize_position({phase::table, "c", "z", true, {}, 10, 4}, tables);
  BOOST_TEST(i == 3U);
  BOOST_TEST((p.at == phase::complete));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // snapshot_progress_tests
