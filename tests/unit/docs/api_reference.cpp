// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// docs/reference/, the reference pages of what a sink reads (lsn, values, relations, changes) and of
// the telemetry dispatcher: every snippet below compiles and runs here, and is quoted verbatim by the
// page its name begins with (`//[lsn.use` by docs/reference/lsn.md); the tables that list an
// enumeration, the alternatives of a value or the members of a struct name every one; and the table
// of the texts `to_string(value)` does not give back is held against the casting fixtures captured
// from a live server, in both directions.
#include <replicant/model/change.hpp>

#include <boost/test/unit_test.hpp>

#include "support/wire/pgoutput_builder.hpp"
#include "unit/docs/support.hpp"

#include <replicant/core/lsn.hpp>
#include <replicant/model/cast.hpp>
#include <replicant/model/mapping.hpp>
#include <replicant/model/pg_type.hpp>
#include <replicant/model/relation.hpp>
#include <replicant/model/schema_change.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <boost/hana/define_struct.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

BOOST_AUTO_TEST_SUITE(docs_api_reference_tests)

// --- docs/reference/lsn.md ------------------------------------------------------------------------

namespace lsn_page {

// The page shows these statements at the left margin, so they stand there here too.
// clang-format off
auto example() -> replicant::result<std::pair<std::int64_t, std::string>> {
//[lsn.use
using namespace replicant::literals;

constexpr replicant::lsn start = "16/B374D848"_lsn;  // checked at compile time
static_assert(start.value() == 0x16'B374'D848);
static_assert(start.is_valid() && !replicant::lsn{}.is_valid());

auto parsed = replicant::parse_lsn("16/b374d850");  // result<lsn>; either case of hex digit
if (!parsed) return replicant::unexpected(parsed.error());  // errc::invalid_lsn
const std::int64_t ahead = replicant::distance(start, *parsed);  // 8 bytes
const replicant::lsn next{parsed->value() + 1};                  // arithmetic goes through value()
const std::string text = replicant::to_string(next);             // "16/B374D851"
//]
  return std::pair{ahead, text};
}
// clang-format on

}  // namespace lsn_page

// --- docs/reference/values.md ---------------------------------------------------------------------

namespace values_page {

//[values.describe
// One column of a row: what the server sent, and the value typed from it.
auto describe(const replicant::field f) -> replicant::result<std::string> {
  const replicant::tuple_column raw = f.raw();
  switch (raw.kind) {
    case replicant::column_kind::null_value: return std::string{"NULL"};
    case replicant::column_kind::unchanged_toast: return std::string{"not sent: keep the stored value"};
    case replicant::column_kind::text: break;    // raw.text(): the type's output text
    case replicant::column_kind::binary: break;  // raw.bytes: the type's send form
  }
  auto v = f.value();  // typed by f.column().type_oid
  if (!v) return replicant::unexpected(v.error());
  return replicant::to_string(*v);
}
//]

//[values.as_double
// A number of any numeric column as a double; anything else is a mismatch.
auto as_double(const replicant::value& v) -> replicant::result<double> {
  if (const auto* i = v.get_if<std::int64_t>()) return static_cast<double>(*i);
  if (const auto* d = v.get_if<double>()) return *d;
  if (const auto* n = v.get_if<replicant::numeric>()) return n->to_double();
  return replicant::fail(replicant::errc::type_mismatch);
}
//]

}  // namespace values_page

// --- docs/reference/relations.md ------------------------------------------------------------------

namespace relations_page {

//[relations.key_columns
// The columns that identify a row of a table: none without a usable key.
auto key_columns(const replicant::relation_info& rel) -> std::vector<std::string> {
  std::vector<std::string> names;
  if (rel.identity == replicant::replica_identity::full) return names;  // every column is flagged: no narrower key
  for (const replicant::column_info& c : rel.columns) {
    if (c.key) names.push_back(c.name);
  }
  return names;
}
//]

}  // namespace relations_page

// --- docs/reference/changes.md --------------------------------------------------------------------

namespace changes_page {

//[changes.row_key
// The replica-identity key of the row a change touched, as text: from the old values when the
// server sent them, else from the new row (an insert, or an update that kept its key).
auto row_key(const replicant::change& c) -> replicant::result<std::vector<std::string>> {
  const replicant::row r = c.old_kind() != replicant::old_tuple_kind::none ? c.old() : c.record();
  std::vector<std::string> key;
  for (const replicant::field f : r) {
    if (!f.column().key) continue;
    auto v = f.value();
    if (!v) return replicant::unexpected(v.error());
    key.push_back(replicant::to_string(*v));
  }
  return key;
}
//]

//[changes.apply
struct order {
  BOOST_HANA_DEFINE_STRUCT(order, (std::int64_t, id), (std::optional<std::string>, note));
};
struct order_key {
  BOOST_HANA_DEFINE_STRUCT(order_key, (std::int64_t, id));
};

// Mirrors a table `orders (id bigint primary key, note text)` into a map.
auto apply(const replicant::change& c, std::map<std::int64_t, std::optional<std::string>>& orders)
    -> replicant::result<void> {
  if (c.op() == replicant::change_op::truncate) {
    orders.clear();
    return {};
  }
  if (c.old_kind() != replicant::old_tuple_kind::none) {  // a delete, or an update that moved the key
    auto old = c.old_as<order_key>();
    if (!old) return replicant::unexpected(old.error());
    orders.erase(old->id);
  }
  if (c.op() == replicant::change_op::delete_) return {};
  auto now = c.as<order>();  // errc::column_unchanged if a long note was left out
  if (!now) return replicant::unexpected(now.error());
  orders[now->id] = now->note;
  return {};
}
//]

// The same table read into a struct whose note is not optional, and one with a member no column has.
struct strict_order {
  BOOST_HANA_DEFINE_STRUCT(strict_order, (std::int64_t, id), (std::string, note));
};
struct order_with_total {
  BOOST_HANA_DEFINE_STRUCT(order_with_total, (std::int64_t, id), (std::optional<std::int64_t>, total));
};

}  // namespace changes_page

// --- docs/reference/telemetry_dispatcher.md -------------------------------------------------------

namespace telemetry_page {

//[telemetry_dispatcher.progress
// Keeps the last position the sink committed and the longest sink call.
struct sink_progress {
  std::atomic<std::uint64_t> committed{0};
  std::atomic<std::int64_t> longest_ns{0};

  auto operator()(const replicant::telemetry::event_record& e) -> void {
    if (e.name != replicant::telemetry::events::sink_committed::name) return;
    if (const auto* at = e.find("commit_lsn")) {
      if (const auto* l = std::get_if<replicant::lsn>(at)) committed = l->value();
    }
    if (const auto* took = e.find("duration")) {
      if (const auto* d = std::get_if<std::chrono::nanoseconds>(took)) {
        if (d->count() > longest_ns) longest_ns = d->count();
      }
    }
  }
};
//]

}  // namespace telemetry_page

namespace {

namespace t = replicant::telemetry;
using replicant::test::col;

// Rows built from TupleData bytes the test keeps alive, as the transaction keeps its own.
class tuples {
 public:
  auto make(const std::vector<col>& cols) -> replicant::tuple_data {
    replicant::test::wire w;
    replicant::test::tuple(w, cols);
    const auto& kept = *kept_.emplace_back(std::make_unique<replicant::test::bytes>(w.take()));
    return replicant::parse_tuple_data(kept).value();
  }

 private:
  std::vector<std::unique_ptr<replicant::test::bytes>> kept_;
};

// `orders (id int8 primary key, note text)` under @p identity.
auto orders(replicant::replica_identity identity) -> replicant::relation_info {
  const bool full = identity == replicant::replica_identity::full;
  return {.oid = 16390,
          .schema = "public",
          .table = "orders",
          .identity = identity,
          .columns = {{"id", replicant::pg_type::int8, -1, true}, {"note", replicant::pg_type::text, -1, full}}};
}

auto page(std::string_view name) -> std::string {
  return docs_support::read_repository_file("docs/reference/" + std::string{name});
}

// The cells of every row of a table in @p section whose first cell starts with a code span.
auto code_rows(std::string_view section) -> std::vector<std::vector<std::string>> {
  std::vector<std::vector<std::string>> out;
  for (const std::string_view line : docs_support::lines(section)) {
    if (line.rfind("| `", 0) == 0) out.push_back(docs_support::cells(line));
  }
  return out;
}

// A cell that is one code span, without its backquotes.
auto unquoted(const std::string& cell) -> std::string {
  BOOST_TEST_REQUIRE((cell.size() >= 2 && cell.front() == '`' && cell.back() == '`'), cell);
  return cell.substr(1, cell.size() - 2);
}

// Whether some row of @p section has `name` as its first cell and mentions `mention` in its cell @p at.
auto row_says(std::string_view section, std::string_view name, std::size_t at, std::string_view mention) -> bool {
  for (const auto& row : docs_support::rows_naming(section, name)) {
    if (row.size() > at && row[at].find("`" + std::string{mention} + "`") != std::string::npos) return true;
  }
  return false;
}

// --- the casting fixtures: tests/data/casting/roundtrip.tsv ---------------------------------------

struct fixture {
  std::string label;
  std::uint32_t oid = 0;
  std::string text;
};

auto from_hex(std::string_view hex) -> std::string {
  std::string out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(static_cast<char>(std::stoi(std::string{hex.substr(i, 2)}, nullptr, 16)));
  return out;
}

auto load_fixtures() -> std::vector<fixture> {
  std::vector<fixture> out;
  std::ifstream in(REPLICANT_TEST_DATA_DIR "/casting/roundtrip.tsv");
  BOOST_TEST_REQUIRE(in.good());
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string f; std::getline(split, f, '\t');) fields.push_back(f);
    BOOST_TEST_REQUIRE(fields.size() >= 3U, line);
    out.push_back({fields[0], static_cast<std::uint32_t>(std::stoul(fields[1])), from_hex(fields[2])});
  }
  return out;
}

// The OID of a type as the to_string table names it.
auto oid_named(const std::string& name) -> std::uint32_t {
  namespace pg = replicant::pg_type;
  static const std::map<std::string, std::uint32_t> known = {
      {"float4", pg::float4}, {"float4[]", pg::float4_array}, {"money", pg::money}, {"money[]", pg::money_array}};
  const auto it = known.find(name);
  BOOST_TEST_REQUIRE((it != known.end()), "a type the test does not know: " << name);
  return it->second;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(docs_api_reference)

BOOST_AUTO_TEST_CASE(every_snippet_is_quoted_by_the_page_its_name_begins_with) {
  const auto source = docs_support::read_text(__FILE__);
  const auto all = docs_support::snippets(source);
  BOOST_TEST_REQUIRE(all.size() >= 7U);
  std::set<std::string> pages;
  for (const auto& [name, text] : all) {
    const auto dot = name.find('.');
    BOOST_TEST_REQUIRE(dot != std::string::npos, name);
    const auto doc = name.substr(0, dot) + ".md";
    pages.insert(doc);
    BOOST_TEST(docs_support::quotes(page(doc), text), "docs/reference/" << doc << " quotes the snippet " << name);
  }
  BOOST_TEST(pages.size() == 5U);
}

// Every reference page is listed in the table of contents and in the folder's own index.
BOOST_AUTO_TEST_CASE(the_table_of_contents_links_every_reference_page) {
  const auto toc = docs_support::read_repository_file("docs/TOC.md");
  const auto folder = page("README.md");
  for (const char* doc : {"lsn.md", "values.md", "relations.md", "changes.md", "telemetry_dispatcher.md"}) {
    BOOST_TEST(toc.find("](reference/" + std::string{doc} + ")") != std::string::npos, doc);
    BOOST_TEST(folder.find("](" + std::string{doc} + ")") != std::string::npos, doc);
  }
}

// --- lsn ------------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_lsn_example_computes_what_its_comments_say) {
  const auto r = lsn_page::example();
  BOOST_TEST_REQUIRE(r.has_value());
  BOOST_TEST(r->first == 8);
  BOOST_TEST(r->second == "16/B374D851");
}

// --- values ---------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(describe_gives_each_kind_of_column_its_form) {
  namespace pg = replicant::pg_type;
  const replicant::relation_info rel{.oid = 1,
                                     .schema = "public",
                                     .table = "t",
                                     .columns = {{"a", pg::int4, -1, true},
                                                 {"b", pg::text, -1, false},
                                                 {"c", pg::numeric, -1, false},
                                                 {"d", pg::text, -1, false}}};
  tuples keep;
  const replicant::row r{rel, keep.make({col::text("42"), col::null(), col::text("1.x"), col::unchanged()})};
  std::vector<std::string> seen;
  for (const replicant::field f : r) {
    const auto d = values_page::describe(f);
    seen.push_back(d ? *d : std::string{d.error() == replicant::errc::decode_failure ? "decode_failure" : "?"});
  }
  BOOST_TEST(seen == (std::vector<std::string>{"42", "NULL", "decode_failure", "not sent: keep the stored value"}));
}

BOOST_AUTO_TEST_CASE(as_double_reads_every_numeric_alternative_and_refuses_the_rest) {
  BOOST_TEST(values_page::as_double(replicant::value{std::int64_t{-3}}).value() == -3.0);
  BOOST_TEST(values_page::as_double(replicant::value{0.25}).value() == 0.25);
  BOOST_TEST(values_page::as_double(replicant::numeric::parse("12.50").value()).value() == 12.5);
  const auto text = values_page::as_double(replicant::text::borrow("12"));
  BOOST_TEST_REQUIRE(!text.has_value());
  BOOST_TEST((text.error() == replicant::errc::type_mismatch));
}

// The table of alternatives names every kind, with its alternative.
BOOST_AUTO_TEST_CASE(the_values_page_lists_every_alternative_of_value) {
  using v = replicant::value::variant_type;
  using replicant::value_kind;
  const auto at = [](value_kind k) { return static_cast<std::size_t>(k); };
  static_assert(std::variant_size_v<v> == 14U);
  static_assert(std::is_same_v<std::variant_alternative_t<0, v>, replicant::null_t>);
  static_assert(std::is_same_v<std::variant_alternative_t<1, v>, bool>);
  static_assert(std::is_same_v<std::variant_alternative_t<2, v>, std::int64_t>);
  static_assert(std::is_same_v<std::variant_alternative_t<3, v>, double>);
  static_assert(std::is_same_v<std::variant_alternative_t<4, v>, replicant::numeric>);
  static_assert(std::is_same_v<std::variant_alternative_t<5, v>, replicant::text>);
  static_assert(std::is_same_v<std::variant_alternative_t<6, v>, replicant::bytea>);
  static_assert(std::is_same_v<std::variant_alternative_t<7, v>, replicant::date>);
  static_assert(std::is_same_v<std::variant_alternative_t<8, v>, replicant::time_of_day>);
  static_assert(std::is_same_v<std::variant_alternative_t<9, v>, replicant::timestamp>);
  static_assert(std::is_same_v<std::variant_alternative_t<10, v>, replicant::timestamptz>);
  static_assert(std::is_same_v<std::variant_alternative_t<11, v>, replicant::uuid>);
  static_assert(std::is_same_v<std::variant_alternative_t<12, v>, replicant::json>);
  static_assert(std::is_same_v<std::variant_alternative_t<13, v>, replicant::array>);
  const std::vector<std::pair<value_kind, std::pair<const char*, const char*>>> rows = {
      {value_kind::null, {"null", "null_t"}},
      {value_kind::boolean, {"boolean", "bool"}},
      {value_kind::int64, {"int64", "std::int64_t"}},
      {value_kind::float64, {"float64", "double"}},
      {value_kind::numeric, {"numeric", "numeric"}},
      {value_kind::text, {"text", "text"}},
      {value_kind::bytea, {"bytea", "bytea"}},
      {value_kind::date, {"date", "date"}},
      {value_kind::time, {"time", "time_of_day"}},
      {value_kind::timestamp, {"timestamp", "timestamp"}},
      {value_kind::timestamptz, {"timestamptz", "timestamptz"}},
      {value_kind::uuid, {"uuid", "uuid"}},
      {value_kind::json, {"json", "json"}},
      {value_kind::array, {"array", "array"}},
  };
  BOOST_TEST_REQUIRE(rows.size() == std::variant_size_v<v>);
  const auto doc = page("values.md");
  const auto section = docs_support::section(doc, "## `value`");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& [kind, names] = rows[i];
    BOOST_TEST(at(kind) == i);
    const std::string name = std::string{"value_kind::"} + names.first;
    BOOST_TEST(row_says(section, name, 1, names.second), name << " is held as " << names.second);
  }
}

// The exceptions table of to_string, held against every value the server printed: a type the table
// does not name renders each of its values as the server sent it, and each row shows a value of its
// type that does not, with what to_string gives for it.
BOOST_AUTO_TEST_CASE(to_string_gives_the_server_text_back_except_where_the_page_says) {
  const auto doc = page("values.md");
  const auto section = docs_support::section(doc, "## `to_string(value)`");
  const auto rows = code_rows(section);
  BOOST_TEST_REQUIRE(rows.size() >= 4U);
  std::set<std::uint32_t> named;
  for (const auto& row : rows) {
    BOOST_TEST_REQUIRE(row.size() == 4U);
    const auto oid = oid_named(unquoted(row[0]));
    named.insert(oid);
    const auto sent = unquoted(row[1]);
    const auto v = replicant::cast_text(oid, sent);
    BOOST_TEST_REQUIRE(v.has_value(), row[0]);
    BOOST_TEST(replicant::to_string(*v) == unquoted(row[2]), row[0] << " " << row[1]);
    BOOST_TEST(replicant::to_string(*v) != sent, row[0] << " " << row[1]);
  }
  std::set<std::uint32_t> differing;
  std::size_t checked = 0;
  for (const auto& f : load_fixtures()) {
    BOOST_TEST_CONTEXT(f.label) {
      const auto v = replicant::cast_text(f.oid, f.text);
      BOOST_TEST_REQUIRE(v.has_value());
      const auto shown = replicant::to_string(*v);
      if (shown != f.text) differing.insert(f.oid);
      if (named.count(f.oid) == 0) BOOST_TEST(shown == f.text);
      // "the text reads back to the same float4"
      if (f.oid == replicant::pg_type::float4) BOOST_TEST((replicant::cast_text(f.oid, shown).value() == *v));
      ++checked;
    }
  }
  BOOST_TEST(checked >= 150U);
  // The fixtures hold values that do not come back for float4 and money (float4[]'s happen to).
  BOOST_TEST(differing.count(replicant::pg_type::float4) == 1U);
  BOOST_TEST(differing.count(replicant::pg_type::money) == 1U);
}

BOOST_AUTO_TEST_CASE(the_two_other_cases_render_as_the_page_says) {
  // An enum in binary mode: its send form, the label's bytes, as bytea.
  const std::string label = "ok";
  const auto e = replicant::cast_binary(16'385, std::as_bytes(std::span{label.data(), label.size()}));
  BOOST_TEST_REQUIRE(e.has_value());
  BOOST_TEST((e->kind() == replicant::value_kind::bytea));
  BOOST_TEST(replicant::to_string(*e) == "\\x6f6b");
  BOOST_TEST(replicant::to_string(replicant::cast_text(16'385, label).value()) == "ok");
  // SQL NULL and the text NULL.
  BOOST_TEST(replicant::to_string(replicant::value{}) ==
             replicant::to_string(replicant::value{replicant::text::borrow("NULL")}));
}

// --- relations ------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(key_columns_follow_the_flags_except_under_full) {
  BOOST_TEST(relations_page::key_columns(orders(replicant::replica_identity::default_key)) ==
             (std::vector<std::string>{"id"}));
  BOOST_TEST(relations_page::key_columns(orders(replicant::replica_identity::full)).empty());
}

// The member tables name every data member (a structured binding stops compiling when one is added),
// and the identity table every replica_identity with its SQL spelling.
BOOST_AUTO_TEST_CASE(the_relations_page_lists_every_member_and_identity) {
  const auto doc = page("relations.md");
  [[maybe_unused]] const auto& [oid, schema, table, identity, columns] = replicant::relation_info{};
  for (const char* m : {"oid", "schema", "table", "identity", "columns"}) {
    BOOST_TEST(!docs_support::rows_naming(docs_support::section(doc, "## `relation_info`"), m).empty(), m);
  }
  [[maybe_unused]] const auto& [name, type_oid, type_modifier, key] = replicant::column_info{};
  for (const char* m : {"name", "type_oid", "type_modifier", "key"}) {
    BOOST_TEST(!docs_support::rows_naming(docs_support::section(doc, "## `column_info`"), m).empty(), m);
  }
  const auto identities = docs_support::section(doc, "## The key flag and `replica_identity`");
  std::size_t known = 0;
  for (int c = 0; c < 128; ++c) {
    const auto id = static_cast<replicant::replica_identity>(static_cast<char>(c));
    const auto sql = replicant::to_string(id);
    if (sql == "unknown") continue;
    ++known;
    const std::string enumerator{sql == "default" ? std::string_view{"default_key"} : sql};
    BOOST_TEST(row_says(identities, "replica_identity::" + enumerator, 1, sql), sql);
  }
  BOOST_TEST(known == 4U);
}

BOOST_AUTO_TEST_CASE(the_schema_change_table_names_every_kind) {
  const std::string doc = page("relations.md");  // the section views it
  const auto section = docs_support::section(doc, "## How a relation changes");
  for (std::uint8_t k = 0; k < 3; ++k) {
    const auto name = replicant::to_string(static_cast<replicant::schema_change_kind>(k));
    BOOST_TEST(!docs_support::rows_naming(section, name).empty(), name);
  }
  BOOST_TEST(replicant::to_string(static_cast<replicant::schema_change_kind>(3)) == "unknown");
  for (std::uint8_t k = 0; k < 8; ++k) {
    const auto name = replicant::to_string(static_cast<replicant::column_change_kind>(k));
    BOOST_TEST(section.find("`" + std::string{name} + "`") != std::string_view::npos, name);
  }
  BOOST_TEST(replicant::to_string(static_cast<replicant::column_change_kind>(8)) == "unknown");
}

// --- changes --------------------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_changes_page_names_every_op_and_old_kind) {
  const auto doc = page("changes.md");
  const auto members = docs_support::section(doc, "## Members");
  for (std::uint8_t op = 0; op < 5; ++op) {
    const auto o = static_cast<replicant::change_op>(op);
    const std::string name = o == replicant::change_op::delete_ ? "delete_" : std::string{replicant::to_string(o)};
    BOOST_TEST(!docs_support::rows_naming(members, name).empty(), name);
  }
  BOOST_TEST(replicant::to_string(static_cast<replicant::change_op>(5)) == "unknown");
  const auto old = docs_support::section(doc, "## Old values: `old_kind()`");
  for (const char* k : {"none", "key", "full"}) BOOST_TEST(!docs_support::rows_naming(old, k).empty(), k);
  using replicant::old_tuple_kind;
  static_assert(static_cast<char>(old_tuple_kind::none) == 0 && static_cast<char>(old_tuple_kind::key) == 'K' &&
                static_cast<char>(old_tuple_kind::full) == 'O');
}

BOOST_AUTO_TEST_CASE(row_key_reads_the_old_values_when_the_server_sent_them) {
  using replicant::change;
  using replicant::change_op;
  using replicant::old_tuple_kind;
  const auto rel = orders(replicant::replica_identity::default_key);
  const auto full = orders(replicant::replica_identity::full);
  tuples keep;
  const auto key_of = [](const change& c) { return changes_page::row_key(c).value(); };
  using keys = std::vector<std::string>;
  BOOST_TEST(key_of(change{change_op::insert, rel, keep.make({col::text("1"), col::text("first")})}) == keys{"1"});
  BOOST_TEST(key_of(change{change_op::update, rel, keep.make({col::text("1"), col::unchanged()})}) == keys{"1"});
  BOOST_TEST(key_of(change{change_op::update, rel, keep.make({col::text("2"), col::text("x")}), old_tuple_kind::key,
                           keep.make({col::text("1"), col::null()})}) == keys{"1"});
  BOOST_TEST(
      key_of(change{change_op::delete_, rel, {}, old_tuple_kind::key, keep.make({col::text("2"), col::null()})}) ==
      keys{"2"});
  BOOST_TEST(key_of(change{change_op::update, full, keep.make({col::text("10"), col::text("new")}),
                           old_tuple_kind::full, keep.make({col::text("10"), col::text("old")})}) ==
             (keys{"10", "old"}));
}

BOOST_AUTO_TEST_CASE(apply_mirrors_every_op_and_stops_at_an_unchanged_note) {
  using replicant::change;
  using replicant::change_op;
  using replicant::old_tuple_kind;
  const auto rel = orders(replicant::replica_identity::default_key);
  const auto full = orders(replicant::replica_identity::full);
  tuples keep;
  std::map<std::int64_t, std::optional<std::string>> mirror;
  const auto step = [&](const change& c) { BOOST_TEST_REQUIRE(changes_page::apply(c, mirror).has_value()); };
  using rows = std::map<std::int64_t, std::optional<std::string>>;

  step(change{change_op::insert, rel, keep.make({col::text("1"), col::text("first")})});
  step(change{change_op::update, rel, keep.make({col::text("1"), col::text("second")})});
  BOOST_TEST((mirror == rows{{1, "second"}}));
  step(change{change_op::update, rel, keep.make({col::text("2"), col::text("moved")}), old_tuple_kind::key,
              keep.make({col::text("1"), col::null()})});
  BOOST_TEST((mirror == rows{{2, "moved"}}));
  step(change{change_op::insert, rel, keep.make({col::text("3"), col::null()})});
  step(change{change_op::delete_, rel, {}, old_tuple_kind::key, keep.make({col::text("2"), col::null()})});
  BOOST_TEST((mirror == rows{{3, std::nullopt}}));
  step(change{change_op::update, full, keep.make({col::text("4"), col::text("re-keyed")}), old_tuple_kind::full,
              keep.make({col::text("3"), col::null()})});
  BOOST_TEST((mirror == rows{{4, "re-keyed"}}));
  step(change::truncation(rel, false, false));
  BOOST_TEST(mirror.empty());

  const auto unchanged =
      changes_page::apply(change{change_op::update, rel, keep.make({col::text("5"), col::unchanged()})}, mirror);
  BOOST_TEST_REQUIRE(!unchanged.has_value());
  BOOST_TEST((unchanged.error() == replicant::errc::column_unchanged));
}

// Each row of the page's table of mapping failures.
BOOST_AUTO_TEST_CASE(mapping_fails_as_the_changes_page_says) {
  using replicant::change;
  using replicant::change_op;
  using replicant::errc;
  using replicant::old_tuple_kind;
  const auto rel = orders(replicant::replica_identity::default_key);
  tuples keep;
  const change deleted{change_op::delete_, rel, {}, old_tuple_kind::key, keep.make({col::text("2"), col::null()})};
  const change kept_key{change_op::update, rel, keep.make({col::text("1"), col::text("x")})};
  const change unchanged{change_op::update, rel, keep.make({col::text("1"), col::unchanged()})};

  BOOST_TEST((deleted.as<changes_page::order>().error() == errc::column_missing));
  BOOST_TEST((change::truncation(rel, false, false).as<changes_page::order>().error() == errc::column_missing));
  BOOST_TEST((kept_key.old_as<changes_page::order_key>().error() == errc::column_missing));
  const auto total = kept_key.as<changes_page::order_with_total>();
  BOOST_TEST((total.error() == errc::column_missing));
  BOOST_TEST(total.error().member == "total");
  const auto note = unchanged.as<changes_page::order>();
  BOOST_TEST((note.error() == errc::column_unchanged));
  BOOST_TEST(note.error().column == "note");
  const change null_note{change_op::insert, rel, keep.make({col::text("1"), col::null()})};
  BOOST_TEST((null_note.as<changes_page::strict_order>().error() == errc::type_mismatch));
  BOOST_TEST((deleted.old_as<changes_page::strict_order>().error() == errc::type_mismatch));
  const auto optional_note = deleted.old_as<changes_page::order>();
  BOOST_TEST_REQUIRE(optional_note.has_value());
  BOOST_TEST(optional_note->id == 2);
  BOOST_TEST(!optional_note->note.has_value());
}

// --- telemetry dispatcher -------------------------------------------------------------------------

BOOST_AUTO_TEST_CASE(the_attach_example_logs_each_event_until_detached) {
  std::ostringstream log;
  auto* const before = std::clog.rdbuf(log.rdbuf());
  {
    // The page shows this at the left margin.
    // clang-format off
//[telemetry_dispatcher.attach
replicant::telemetry::dispatcher events;  // must outlive the pipeline
const replicant::telemetry::handler_id logger = events.attach([](const replicant::telemetry::event_record& e) {
  std::clog << replicant::telemetry::to_string(e) << '\n';  // replicant.sink.committed duration=1500ns commit_lsn=0/16B3748
});
// replicant::pipeline<...> p{sink, decoder_options, options, &events};
//]
    // clang-format on
    BOOST_TEST(events.has_handlers());
    t::emit<t::events::sink_committed>(events, t::keys::duration = std::chrono::nanoseconds{1500},
                                       t::keys::commit_lsn = replicant::lsn{0x16B3748});
    BOOST_TEST(events.detach(logger));
    BOOST_TEST(!events.detach(logger));
    BOOST_TEST(!events.has_handlers());
    t::emit<t::events::sink_committed>(events, t::keys::commit_lsn = replicant::lsn{1});
  }
  std::clog.rdbuf(before);
  BOOST_TEST(log.str() == "replicant.sink.committed duration=1500ns commit_lsn=0/16B3748\n");
}

BOOST_AUTO_TEST_CASE(sink_progress_keeps_the_last_commit_and_the_longest_call) {
  t::dispatcher events;
  telemetry_page::sink_progress progress;
  const auto id = events.attach(std::ref(progress));
  t::emit<t::events::sink_committed>(events, t::keys::duration = std::chrono::milliseconds{5},
                                     t::keys::commit_lsn = replicant::lsn{10});
  t::emit<t::events::checkpoint_advanced>(events, t::keys::commit_lsn = replicant::lsn{99});
  t::emit<t::events::sink_committed>(events, t::keys::duration = std::chrono::milliseconds{2},
                                     t::keys::commit_lsn = replicant::lsn{20});
  BOOST_TEST(progress.committed.load() == 20U);
  BOOST_TEST(progress.longest_ns.load() == 5'000'000);
  BOOST_TEST(events.detach(id));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_api_reference_tests
