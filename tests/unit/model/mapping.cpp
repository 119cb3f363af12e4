// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/model/mapping.hpp>

#include <boost/test/unit_test.hpp>

#include "support/wire/pgoutput_builder.hpp"

#include <boost/hana/define_struct.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

BOOST_AUTO_TEST_SUITE(model_mapping_tests)

namespace pg = replicant::test;
using replicant::errc;

namespace {

// A row of one relation from TupleData columns, as the decoder would hand it over.
struct fixture_row {
  replicant::relation_info relation;
  pg::bytes wire;

  fixture_row(std::vector<replicant::column_info> columns, const std::vector<pg::col>& cols) {
    relation.oid = 16384;
    relation.schema = "public";
    relation.table = "t";
    relation.columns = std::move(columns);
    pg::wire w;
    pg::tuple(w, cols);
    wire = w.take();
  }

  [[nodiscard]] auto get() const -> replicant::row {
    const auto tuple = replicant::parse_tuple_data(wire);
    BOOST_REQUIRE(tuple);
    return replicant::row{relation, *tuple};
  }
};

struct amount_view {
  BOOST_HANA_DEFINE_STRUCT(amount_view, (std::string_view, amount));
};
struct amount_copy {
  BOOST_HANA_DEFINE_STRUCT(amount_copy, (std::string, amount));
};
struct tags_view {
  BOOST_HANA_DEFINE_STRUCT(tags_view, (std::vector<std::string_view>, tags));
};

auto as_string(const pg::bytes& b) -> std::string { return {reinterpret_cast<const char*>(b.data()), b.size()}; }

}  // namespace

BOOST_AUTO_TEST_SUITE(mapping)

BOOST_AUTO_TEST_CASE(string_view_members_view_the_received_bytes) {
  const fixture_row r{{{"amount", replicant::pg_type::numeric, -1, false}}, {pg::col::text("12.50")}};
  const auto mapped = replicant::as<amount_view>(r.get());
  BOOST_REQUIRE(mapped);
  BOOST_TEST(mapped->amount == "12.50");
  // The view points into the row's own bytes, which the sink callback keeps alive.
  const auto* begin = reinterpret_cast<const char*>(r.wire.data());
  BOOST_TEST((mapped->amount.data() >= begin && mapped->amount.data() < begin + r.wire.size()));
}

// Found by fuzzing (fuzz_pgoutput_stream): a std::string_view member of a value that the cast had to
// render (here a binary numeric, whose digits exist only in the cast's result) pointed into that
// result, which as() destroys before returning: a heap-use-after-free for the caller.
BOOST_AUTO_TEST_CASE(string_view_members_refuse_values_rendered_by_the_cast) {
  const auto numeric_send = pg::wire{}.i16(2).i16(0).u16(0).u16(2).u16(12).u16(5000).take();  // 12.50
  const fixture_row binary{{{"amount", replicant::pg_type::numeric, -1, false}},
                           {pg::col::binary(as_string(numeric_send))}};
  const auto view = replicant::as<amount_view>(binary.get());
  BOOST_REQUIRE(!view);
  BOOST_TEST(view.error() == errc::type_mismatch);
  const auto copy = replicant::as<amount_copy>(binary.get());
  BOOST_REQUIRE(copy);
  BOOST_TEST(copy->amount == "12.50");

  const fixture_row money{{{"amount", replicant::pg_type::money, -1, false}}, {pg::col::text("-$1,234.56")}};
  BOOST_TEST(replicant::as<amount_view>(money.get()).error() == errc::type_mismatch);
  BOOST_TEST(replicant::as<amount_copy>(money.get())->amount == "-1234.56");

  // Array elements: an escaped element is unescaped into memory of the cast's own.
  const fixture_row tags{{{"tags", replicant::pg_type::text_array, -1, false}}, {pg::col::text(R"({"a\\b",c})")}};
  BOOST_TEST(replicant::as<tags_view>(tags.get()).error() == errc::type_mismatch);
  const fixture_row plain_tags{{{"tags", replicant::pg_type::text_array, -1, false}}, {pg::col::text("{a,c}")}};
  const auto plain = replicant::as<tags_view>(plain_tags.get());
  BOOST_REQUIRE(plain);
  BOOST_TEST(plain->tags == (std::vector<std::string_view>{"a", "c"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // model_mapping_tests
