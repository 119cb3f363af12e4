// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The spill policy concept (replicant/spill/policy.hpp): which types model it and which do not, the
// laws of a spill_part (over the archetype's memory part and disk_spill's file part), and the
// assembler over any policy's parts: a part that fails to be made, written or read back is an
// error, and one that reads back a few bytes at a time still delivers every change in order.
#include <replicant/spill/policy.hpp>

#include <boost/test/unit_test.hpp>

#include "archetypes/spill_policy.hpp"
#include "support/common/temp_dir.hpp"
#include "support/sinks/spill_fixture.hpp"

#include <replicant/assembler/assembler.hpp>
#include <replicant/spill/disk.hpp>
#include <replicant/spill/none.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(spill_policy_tests)

namespace pg = replicant::test;
using replicant::errc;
using replicant::lsn;
using replicant::result;
using replicant::spill_context;
using replicant::spill_limits;
using replicant::spill_part;

namespace {

// Not models: each lacks one member, or has it with the wrong shape.
struct lacks_open {
  [[nodiscard]] auto limits(const spill_context&) const -> std::optional<spill_limits> { return std::nullopt; }
  auto prepare(const spill_context&) -> result<void> { return {}; }
};
struct lacks_prepare {
  [[nodiscard]] auto limits(const spill_context&) const -> std::optional<spill_limits> { return std::nullopt; }
  auto open(const spill_context&) -> result<std::unique_ptr<spill_part>> { return nullptr; }
};
struct limits_not_const {
  auto limits(const spill_context&) -> std::optional<spill_limits> { return std::nullopt; }
  auto prepare(const spill_context&) -> result<void> { return {}; }
  auto open(const spill_context&) -> result<std::unique_ptr<spill_part>> { return nullptr; }
};
struct opens_a_derived_pointer {
  [[nodiscard]] auto limits(const spill_context&) const -> std::optional<spill_limits> { return std::nullopt; }
  auto prepare(const spill_context&) -> result<void> { return {}; }
  auto open(const spill_context&) -> result<std::unique_ptr<archetypes::memory_part>> { return nullptr; }
};

}  // namespace

// The library's models, and the archetype, which has nothing but the required members.
static_assert(replicant::spill_policy<replicant::no_spill>);
static_assert(replicant::spill_policy<replicant::disk_spill>);
static_assert(replicant::spill_policy<archetypes::spill_policy>);
static_assert(replicant::detail::check_spill_policy<replicant::no_spill>());
static_assert(replicant::detail::check_spill_policy<replicant::disk_spill>());
static_assert(replicant::detail::check_spill_policy<archetypes::spill_policy>());
// Each atom names one member.
static_assert(!replicant::spill_policy<lacks_open> && !replicant::detail::has_spill_open<lacks_open>);
static_assert(replicant::detail::has_spill_limits<lacks_open> && replicant::detail::has_spill_prepare<lacks_open>);
static_assert(!replicant::spill_policy<lacks_prepare> && !replicant::detail::has_spill_prepare<lacks_prepare>);
static_assert(!replicant::detail::has_spill_limits<limits_not_const>);       // a query: callable on a const policy
static_assert(!replicant::detail::has_spill_open<opens_a_derived_pointer>);  // exactly unique_ptr<spill_part>
static_assert(!replicant::spill_policy<int> && !replicant::spill_policy<void>);
// no_spill stays free; parts are only ever handled through pointers.
static_assert(std::is_empty_v<replicant::no_spill>);
static_assert(std::is_abstract_v<spill_part> && std::has_virtual_destructor_v<spill_part>);
static_assert(!std::is_constructible_v<spill_part>);

namespace {

using pg::feed;
using pg::numbers;
using reader = pg::id_reader;

auto one_transaction(int rows) -> std::vector<pg::bytes> {
  std::vector<pg::bytes> in{pg::begin(lsn{0x900}, 0, 7), pg::orders_relation()};
  for (int i = 1; i <= rows; ++i) in.push_back(pg::orders_insert(std::nullopt, i));
  in.push_back(pg::commit(lsn{0x900}, lsn{0x920}, 0));
  return in;
}

// A memory part with faults on order: a failing append or read, or reads of a few bytes at a time.
class faulty_part final : public spill_part {
 public:
  struct faults {
    bool append_fails = false;
    bool read_fails = false;
    std::size_t read_at_most = 0;  // 0: no limit
  };
  explicit faulty_part(faults f) : faults_(f) {}
  auto append(std::span<const std::byte> bytes) -> result<void> override {
    if (faults_.append_fails) return replicant::fail(errc::io_failed);
    return inner_.append(bytes);
  }
  auto flush() -> result<void> override { return inner_.flush(); }
  auto read(std::uint64_t offset, std::span<std::byte> into) const -> result<std::size_t> override {
    if (faults_.read_fails) return replicant::fail(errc::io_failed);
    if (faults_.read_at_most != 0 && into.size() > faults_.read_at_most) into = into.first(faults_.read_at_most);
    return inner_.read(offset, into);
  }
  auto truncate(std::uint64_t size) -> result<void> override { return inner_.truncate(size); }
  [[nodiscard]] auto size() const noexcept -> std::uint64_t override { return inner_.size(); }

 private:
  faults faults_;
  archetypes::memory_part inner_;
};

auto enable(replicant::assembler& a, faulty_part::faults f) -> void {
  a.enable_spill({2048, 1U << 30U}, [f]() -> result<std::unique_ptr<spill_part>> {
    return std::unique_ptr<spill_part>{std::make_unique<faulty_part>(f)};
  });
}

// The laws of a part, over any part: what is appended reads back, in order, from any offset, in
// pieces of any size; size() counts what was appended; truncate cuts and appending goes on there.
auto check_part_laws(spill_part& part) -> void {
  BOOST_TEST(part.size() == 0U);
  std::vector<std::byte> written;
  for (std::size_t i = 0; i < 300'000; ++i) written.push_back(static_cast<std::byte>((i * 7U) % 251U));
  // Appends of assorted sizes, one larger than any buffer a part is likely to keep.
  std::size_t at = 0;
  for (const std::size_t n : {std::size_t{1}, std::size_t{15}, std::size_t{1000}, std::size_t{270'000}}) {
    BOOST_TEST_REQUIRE(part.append(std::span{written}.subspan(at, n)).has_value());
    at += n;
    BOOST_TEST(part.size() == at);
  }
  BOOST_TEST_REQUIRE(part.append(std::span{written}.subspan(at)).has_value());
  BOOST_TEST(part.size() == written.size());
  BOOST_TEST_REQUIRE(part.flush().has_value());
  const auto read_all = [&](std::uint64_t from, std::size_t piece) {
    std::vector<std::byte> out;
    std::vector<std::byte> buffer(piece);
    for (;;) {
      auto got = part.read(from + out.size(), buffer);
      BOOST_TEST_REQUIRE(got.has_value());
      if (*got == 0) break;
      out.insert(out.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(*got));
    }
    return out;
  };
  BOOST_TEST((read_all(0, 4096) == written));
  BOOST_TEST((read_all(12345, 77) == std::vector<std::byte>(written.begin() + 12345, written.end())));
  BOOST_TEST(read_all(written.size(), 16).empty());
  // Cut, then append again from there.
  BOOST_TEST_REQUIRE(part.truncate(1016).has_value());
  BOOST_TEST(part.size() == 1016U);
  written.resize(1016);
  const std::vector<std::byte> more(100, std::byte{0x5a});
  BOOST_TEST_REQUIRE(part.append(more).has_value());
  written.insert(written.end(), more.begin(), more.end());
  BOOST_TEST_REQUIRE(part.flush().has_value());
  BOOST_TEST(part.size() == written.size());
  BOOST_TEST((read_all(0, 4096) == written));
}

}  // namespace

BOOST_AUTO_TEST_SUITE(spill_policy)

BOOST_AUTO_TEST_CASE(no_spill_never_spills_and_makes_no_part) {
  replicant::no_spill p;
  const spill_context ctx{"s", 1U << 20U};
  BOOST_TEST(!std::as_const(p).limits(ctx).has_value());
  BOOST_TEST(p.prepare(ctx).has_value());
  const auto part = p.open(ctx);
  BOOST_TEST_REQUIRE(!part.has_value());
  BOOST_TEST(part.error() == errc::io_failed);
}

BOOST_AUTO_TEST_CASE(disk_spill_spills_past_a_quarter_of_the_budget_up_to_its_bound) {
  const spill_context ctx{"s", 1U << 20U};
  const auto l = replicant::disk_spill{}.limits(ctx);
  BOOST_TEST_REQUIRE(l.has_value());
  BOOST_TEST(l->threshold_bytes == 256U * 1024U);
  BOOST_TEST(l->max_bytes == 16U << 20U);
  BOOST_TEST(replicant::disk_spill{.max_spill_bytes = 5}.limits(ctx)->max_bytes == 5U);
}

BOOST_AUTO_TEST_CASE(the_archetype_memory_part_keeps_the_laws) {
  archetypes::memory_part part;
  check_part_laws(part);
}

BOOST_AUTO_TEST_CASE(the_disk_spill_part_keeps_the_laws) {
  pg::temp_dir dir{"replicant-spill-test"};
  replicant::disk_spill p{.dir = dir.path() / "spill"};
  const spill_context ctx{"s", 1U << 20U};
  BOOST_TEST_REQUIRE(p.prepare(ctx).has_value());
  auto part = p.open(ctx);
  BOOST_TEST_REQUIRE(part.has_value());
  BOOST_TEST_REQUIRE(*part != nullptr);
  check_part_laws(**part);
}

BOOST_AUTO_TEST_CASE(any_policy_s_part_carries_a_transaction_whole_and_in_order) {
  archetypes::spill_policy policy{0};
  const spill_context ctx{"s", 8192};
  BOOST_TEST_REQUIRE(policy.prepare(ctx).has_value());
  replicant::assembler a;
  a.enable_spill(*std::as_const(policy).limits(ctx), [&policy, ctx] { return policy.open(ctx); });
  reader r;
  auto in = one_transaction(400);
  in.pop_back();
  BOOST_TEST_REQUIRE(feed(a, r, in).has_value());
  BOOST_TEST(a.spilled_bytes() > 40'000U);
  BOOST_TEST(a.resident_bytes() <= 2048U + 200U);
  BOOST_TEST_REQUIRE(feed(a, r, {pg::commit(lsn{0x900}, lsn{0x920}, 0)}).has_value());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(r.ids[0] == numbers(1, 400), boost::test_tools::per_element());
  BOOST_TEST(!r.read_error.has_value());
}

BOOST_AUTO_TEST_CASE(a_part_read_a_few_bytes_at_a_time_delivers_the_same_changes) {
  replicant::assembler a;
  enable(a, {.read_at_most = 7});
  reader r;
  BOOST_TEST_REQUIRE(feed(a, r, one_transaction(300)).has_value());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(r.ids[0] == numbers(1, 300), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_part_that_cannot_be_written_is_an_io_error) {
  replicant::assembler a;
  enable(a, {.append_fails = true});
  reader r;
  const auto fed = feed(a, r, one_transaction(300));
  BOOST_TEST_REQUIRE(!fed.has_value());
  BOOST_TEST(fed.error() == errc::io_failed);
  BOOST_TEST(r.ids.empty());
}

BOOST_AUTO_TEST_CASE(a_part_that_cannot_be_read_back_ends_the_iteration_with_its_error) {
  replicant::assembler a;
  enable(a, {.read_fails = true});
  reader r;
  BOOST_TEST_REQUIRE(feed(a, r, one_transaction(300)).has_value());
  BOOST_TEST_REQUIRE(r.read_error.has_value());
  BOOST_TEST(*r.read_error == errc::io_failed);
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(r.ids[0].size() < 300U, "the iteration ended at the failed read");
}

BOOST_AUTO_TEST_CASE(a_policy_that_makes_no_part_is_an_io_error) {
  for (const bool null_part : {true, false}) {
    replicant::assembler a;
    a.enable_spill({2048, 1U << 30U}, [null_part]() -> result<std::unique_ptr<spill_part>> {
      if (null_part) return std::unique_ptr<spill_part>{};
      return replicant::fail(errc::io_failed);
    });
    reader r;
    const auto fed = feed(a, r, one_transaction(300));
    BOOST_TEST_REQUIRE(!fed.has_value());
    BOOST_TEST(fed.error() == errc::io_failed);
  }
}

BOOST_AUTO_TEST_CASE(a_subtransaction_abort_cuts_any_policy_s_part_exactly) {
  replicant::assembler a{{.version = 2, .streaming = replicant::pgoutput_streaming::on}};
  enable(a, {.read_at_most = 100});
  reader r;
  BOOST_TEST_REQUIRE(feed(a, r, pg::streamed_with_a_subtransaction()).has_value());
  BOOST_TEST(a.spilled_bytes() > 0U);
  BOOST_TEST_REQUIRE(feed(a, r, pg::its_subtransaction_rolled_back_then_committed()).has_value());
  BOOST_TEST_REQUIRE(r.ids.size() == 1U);
  BOOST_TEST(r.ids[0] == pg::keys_after_the_rollback(), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // spill_policy_tests
