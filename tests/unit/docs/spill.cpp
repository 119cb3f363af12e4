// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// docs/spill.md, the requirements page of the spill policy family: its exemplars compile (the
// snippets below, quoted there verbatim), the exemplar policy keeps the laws of a part and carries
// a spilled transaction whole, and the tables name every member of the concept and of disk_spill.
#include <replicant/pipeline.hpp>

#include <boost/test/unit_test.hpp>

#include "support/wire/pgoutput_builder.hpp"
#include "unit/docs/support.hpp"

#include <replicant/assembler/assembler.hpp>

#include <unistd.h>
#include <algorithm>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(docs_spill_tests)

//[spill_exemplar
// Spills each transaction into an anonymous temporary file (std::tmpfile: mode 0600, removed
// when closed, and on Linux never given a name at all).
class tmpfile_part final : public replicant::spill_part {
 public:
  explicit tmpfile_part(std::FILE* f) noexcept : file_(f) {}
  tmpfile_part(const tmpfile_part&) = delete;
  auto operator=(const tmpfile_part&) -> tmpfile_part& = delete;
  ~tmpfile_part() override { std::fclose(file_); }

  auto append(std::span<const std::byte> bytes) -> replicant::result<void> override {
    if (std::fseek(file_, static_cast<long>(size_), SEEK_SET) != 0 ||
        std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
      return replicant::fail(replicant::errc::io_failed);
    }
    size_ += bytes.size();
    return {};
  }
  auto flush() -> replicant::result<void> override {
    if (std::fflush(file_) != 0) return replicant::fail(replicant::errc::io_failed);
    return {};
  }
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> replicant::result<std::size_t> override {
    if (offset >= size_) return std::size_t{0};
    if (std::fseek(file_, static_cast<long>(offset), SEEK_SET) != 0) return replicant::fail(replicant::errc::io_failed);
    const auto n = std::fread(into.data(), 1, std::min<std::uint64_t>(into.size(), size_ - offset), file_);
    if (n == 0) return replicant::fail(replicant::errc::io_failed);
    return n;
  }
  auto truncate(std::uint64_t size) -> replicant::result<void> override {
    if (::ftruncate(::fileno(file_), static_cast<off_t>(size)) != 0) return replicant::fail(replicant::errc::io_failed);
    size_ = size;
    return {};
  }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return size_; }

 private:
  std::FILE* file_;
  std::uint64_t size_ = 0;
};

struct tmpfile_spill {
  std::uint64_t max_bytes = std::uint64_t{1} << 30U;

  [[nodiscard]] auto limits(const replicant::spill_context& ctx) const -> std::optional<replicant::spill_limits> {
    return replicant::spill_limits{.threshold_bytes = ctx.budget / 4, .max_bytes = max_bytes};
  }
  auto prepare(const replicant::spill_context& /*ctx*/) -> replicant::result<void> { return {}; }
  auto open(const replicant::spill_context& /*ctx*/) -> replicant::result<std::unique_ptr<replicant::spill_part>> {
    std::FILE* f = std::tmpfile();
    if (f == nullptr) return replicant::fail(replicant::errc::io_failed);
    return std::unique_ptr<replicant::spill_part>{std::make_unique<tmpfile_part>(f)};
  }
};

static_assert(replicant::spill_policy<tmpfile_spill>);
//]

//[spill_sink
struct counting_sink {
  std::optional<replicant::lsn> stored;
  std::uint64_t rows = 0;

  auto checkpoint() -> replicant::result<std::optional<replicant::lsn>> { return stored; }

  auto handle_transaction(const replicant::transaction& txn) -> replicant::result<replicant::lsn> {
    if (stored && txn.commit_lsn() <= *stored) return txn.commit_lsn();
    std::uint64_t seen = 0;
    for (const replicant::change& c : txn.changes()) {  // one pass, during the call
      static_cast<void>(c);
      ++seen;
    }
    // A spilled part that could not be read back ended the loop early: keep nothing of it.
    if (const auto ec = txn.read_error()) return replicant::unexpected(ec);
    rows += seen;
    stored = txn.commit_lsn();
    return txn.commit_lsn();
  }
};
//]

//[spill_pipelines
using memory_only = replicant::pgoutput_pipeline<counting_sink>;

using spilling = replicant::pgoutput_pipeline<counting_sink, replicant::sink_owned_checkpoint, replicant::disk_spill>;

using spilling_to_tmpfiles =
    replicant::pgoutput_pipeline<counting_sink, replicant::sink_owned_checkpoint, tmpfile_spill>;

auto make_spilling(counting_sink& sink, const replicant::pgoutput_options& pg, const replicant::pipeline_options& o)
    -> std::unique_ptr<spilling> {
  return std::make_unique<spilling>(
      sink, pg, replicant::sink_owned_checkpoint{},
      replicant::disk_spill{.dir = "/var/lib/orders-cdc/spill", .max_spill_bytes = std::uint64_t{8} << 30U}, o);
}
//]

static_assert(replicant::sink<counting_sink>);
static_assert(replicant::spill_policy<replicant::no_spill> && replicant::spill_policy<replicant::disk_spill>);
// "P{}: a pipeline constructor that is not given p makes P{}" — the models take the short form.
static_assert(std::constructible_from<memory_only, counting_sink&, replicant::pgoutput_options,
                                      replicant::sink_owned_checkpoint, replicant::pipeline_options>);
static_assert(std::constructible_from<spilling, counting_sink&, replicant::pgoutput_options,
                                      replicant::sink_owned_checkpoint, replicant::pipeline_options>);
static_assert(std::constructible_from<spilling_to_tmpfiles, counting_sink&, replicant::pgoutput_options,
                                      replicant::sink_owned_checkpoint, replicant::pipeline_options>);
static_assert(
    std::constructible_from<spilling, counting_sink&, replicant::pgoutput_options, replicant::sink_owned_checkpoint,
                            replicant::disk_spill, replicant::pipeline_options>);
// "no_spill has no settings: an empty struct"; disk_spill's settings are designated-initialized.
static_assert(std::is_empty_v<replicant::no_spill>);
static_assert(std::is_aggregate_v<replicant::no_spill> && std::is_aggregate_v<replicant::disk_spill>);

namespace {

namespace pg = replicant::test;

struct collector {
  std::vector<std::int64_t> ids;
  auto operator()(replicant::transaction&& t) -> replicant::result<void> {
    for (const auto& c : t.changes()) ids.push_back(c.record().value("id")->get<std::int64_t>());
    return {};
  }
  auto operator()(const replicant::logical_message&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::schema_change&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::empty_commit&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::prepared_event&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::rollback_prepared_event&) -> replicant::result<void> { return {}; }
  auto operator()(const replicant::stream_abort_event&) -> replicant::result<void> { return {}; }
};

}  // namespace

BOOST_AUTO_TEST_SUITE(docs_spill)

BOOST_AUTO_TEST_CASE(the_page_quotes_its_compiled_exemplar) {
  docs_support::require_quoted(docs_support::read_text(__FILE__), "docs/spill.md");
}

BOOST_AUTO_TEST_CASE(the_exemplar_policy_carries_a_spilled_transaction_whole_and_in_order) {
  tmpfile_spill policy;
  const replicant::spill_context ctx{"shop_spill", 16 * 1024};
  BOOST_TEST_REQUIRE(policy.prepare(ctx).has_value());
  replicant::assembler a;
  a.enable_spill(*std::as_const(policy).limits(ctx), [&policy, ctx] { return policy.open(ctx); });
  collector c;
  std::vector<pg::bytes> in{pg::begin(replicant::lsn{0x900}, 0, 7),
                            pg::relation(std::nullopt, 16384, "public", "orders", 'd', {{"id", 23, -1, true}})};
  for (int i = 1; i <= 2000; ++i) in.push_back(pg::insert(std::nullopt, 16384, {pg::col::text(std::to_string(i))}));
  for (const auto& m : in) BOOST_TEST_REQUIRE(a.push(m, c).has_value());
  BOOST_TEST(a.spilled_bytes() > 0U);
  BOOST_TEST_REQUIRE(a.push(pg::commit(replicant::lsn{0x900}, replicant::lsn{0x920}, 0), c).has_value());
  BOOST_TEST_REQUIRE(c.ids.size() == 2000U);
  for (std::size_t i = 0; i < c.ids.size(); ++i) BOOST_TEST_REQUIRE(c.ids[i] == static_cast<std::int64_t>(i + 1));
}

BOOST_AUTO_TEST_CASE(the_disk_spill_defaults_are_those_of_the_settings_table) {
  const replicant::disk_spill p{};
  BOOST_TEST(p.dir.empty());
  BOOST_TEST(p.max_spill_bytes == 0U);
  const auto where = p.directory();  // the process's private directory
  BOOST_TEST_REQUIRE(where.has_value());
  BOOST_TEST(where->parent_path() == std::filesystem::temp_directory_path());
  BOOST_TEST(where->filename().string().starts_with("replicant-spill-"));
  const replicant::disk_spill q{.dir = "/var/lib/orders-cdc/spill"};
  BOOST_TEST(q.directory().value() == std::filesystem::path{"/var/lib/orders-cdc/spill"});
  const auto l = p.limits({"shop_spill", 1U << 20U});
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(l->threshold_bytes == (1U << 20U) / 4U);
  BOOST_TEST(l->max_bytes == 16U << 20U);
}

BOOST_AUTO_TEST_CASE(the_exemplar_builds_a_pipeline_that_refuses_bad_options_before_spilling_anything) {
  counting_sink sink;
  replicant::pipeline_options o;
  o.conninfo = "dbname=shop";
  o.slot = "shop_spill";
  o.max_inflight_bytes = 0;  // a zero budget is refused before anything connects
  auto p = make_spilling(sink, {.publications = {"shop_pub"}}, o);
  std::error_code ec;
  p->run(ec);
  BOOST_TEST(ec == replicant::errc::halted);
  BOOST_TEST_REQUIRE(p->last_halt().has_value());
  BOOST_TEST(p->last_halt()->reason == replicant::halt_reason::config_invalid);
  BOOST_TEST(!std::filesystem::exists("/var/lib/orders-cdc/spill"));
}

BOOST_AUTO_TEST_CASE(the_requirements_table_names_every_member_once) {
  const auto page = docs_support::read_repository_file("docs/spill.md");
  const auto requirements = docs_support::section(page, "## Requirements");
  BOOST_TEST_REQUIRE(!requirements.empty());
  for (const auto* expression : {"cp.limits(ctx)", "p.prepare(ctx)", "p.open(ctx)", "part.append(bytes)",
                                 "part.flush()", "cpart.read(offset, into)", "part.truncate(n)", "cpart.size()"}) {
    BOOST_TEST(docs_support::rows_naming(requirements, expression).size() == 1U, expression);
  }
}

BOOST_AUTO_TEST_CASE(the_spill_settings_table_lists_every_member) {
  const auto page = docs_support::read_repository_file("docs/spill.md");
  for (const auto* member : {"dir", "max_spill_bytes", "directory()"}) {
    BOOST_TEST(docs_support::rows_naming(page, member).size() == 1U, member);
  }
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // docs_spill_tests
