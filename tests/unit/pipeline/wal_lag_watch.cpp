// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
//
// The WAL-lag bound's judgement: a warning at half the bound, once per crossing; a halt only when
// the lag stays past the bound without shrinking for a whole window, so that catching up on a
// backlog is never taken for a slow sink.
#include <replicant/pipeline/detail/wal_lag_watch.hpp>

#include <boost/test/unit_test.hpp>

#include <cstdint>

BOOST_AUTO_TEST_SUITE(pipeline_wal_lag_watch_tests)

namespace {

using watch = replicant::detail::wal_lag_watch;
using verdict = watch::verdict;

// Feeds @p lag @p n times; the last verdict.
auto feed(watch& w, std::int64_t lag, int n) -> verdict {
  verdict v = verdict::fine;
  for (int i = 0; i < n; ++i) v = w.measure(lag);
  return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(half_the_bound_is_announced_once_per_crossing) {
  watch w{1000};
  BOOST_TEST((w.measure(100) == verdict::fine));
  BOOST_TEST((w.measure(500) == verdict::lagging));
  BOOST_TEST((w.measure(700) == verdict::fine));  // still lagging: said once
  BOOST_TEST((w.measure(499) == verdict::fine));  // below half again
  BOOST_TEST((w.measure(600) == verdict::lagging));
  w.caught_up();  // nothing waited unread: the next crossing is news again
  BOOST_TEST((w.measure(600) == verdict::lagging));
}

BOOST_AUTO_TEST_CASE(a_lag_past_the_bound_that_does_not_shrink_for_a_window_halts) {
  watch w{1000};
  BOOST_TEST((w.measure(1001) == verdict::lagging));  // the warning comes first
  BOOST_TEST((feed(w, 1001, watch::window - 2) == verdict::fine));
  BOOST_TEST((w.measure(1001) == verdict::too_slow));
}

BOOST_AUTO_TEST_CASE(a_growing_lag_halts_after_a_window) {
  watch w{1000};
  verdict v = verdict::fine;
  int measured = 0;
  for (std::int64_t lag = 1100; v != verdict::too_slow && measured < 100; lag += 100, ++measured) v = w.measure(lag);
  BOOST_TEST((v == verdict::too_slow));
  BOOST_TEST(measured == watch::window);
}

BOOST_AUTO_TEST_CASE(catching_up_on_a_backlog_never_halts) {
  watch w{1000};
  // Far behind, but a little less each time: the sink is faster than the server.
  for (std::int64_t lag = 100'000; lag > 0; lag -= 10) BOOST_TEST_REQUIRE((w.measure(lag) != verdict::too_slow));
  // Noisy, but shrinking on the whole: every dip below the window's start begins a new window.
  for (std::int64_t i = 0; i < 300; ++i) {
    BOOST_TEST_REQUIRE((w.measure(5000 - 10 * i + (i % 2 == 1 ? 15 : 0)) != verdict::too_slow));
  }
}

BOOST_AUTO_TEST_CASE(a_lag_back_within_the_bound_restarts_the_window) {
  watch w{1000};
  BOOST_TEST((feed(w, 2000, watch::window - 1) != verdict::too_slow));
  BOOST_TEST((w.measure(900) == verdict::fine));
  BOOST_TEST((feed(w, 2000, watch::window - 1) != verdict::too_slow));
  w.caught_up();
  BOOST_TEST((feed(w, 2000, watch::window - 1) != verdict::too_slow));
  BOOST_TEST((w.measure(2000) == verdict::too_slow));
}

BOOST_AUTO_TEST_SUITE_END()  // pipeline_wal_lag_watch_tests
