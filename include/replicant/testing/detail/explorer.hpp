// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTING_DETAIL_EXPLORER_HPP
#define REPLICANT_TESTING_DETAIL_EXPLORER_HPP

// The explorer behind replicant::testing::explore: schedules (a world, the steps at which the
// process crashes, the sink calls that fail, the side connection's outages, keepalives damaged on
// the way), one run of a schedule over process incarnations, the checks after every step and at
// the end, and the shrinking of a failing schedule.

#include <replicant/pipeline.hpp>
#include <replicant/testing/detail/engine_run.hpp>
#include <replicant/testing/detail/sim_probe.hpp>
#include <replicant/testing/detail/sim_server.hpp>
#include <replicant/testing/simulation.hpp>
#include <replicant/testing/subject.hpp>
#include <replicant/testing/world.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace replicant::testing::detail {

// What happens to one world: the steps (crash points, counted over the whole run) at which the
// process crashes, whether each crash also loses the last acknowledgement (it never reached the
// server, or the server crashed too and kept an older position), the sink calls that fail, and
// the seed of the order in which an asynchronous sink's writes land. Beside the stream: the calls
// on the side connection (counted over the whole run) that fail, and how; the calls during which
// the publication is gone; and whether every keepalive reports where the WAL ends rather than what
// was sent (damaged on the way).
struct fault_plan {
  std::vector<std::uint64_t> crashes;
  std::vector<bool> ack_lost;
  std::set<std::uint64_t> failing_calls;
  sink_fault how = sink_fault::error;
  std::uint64_t seed = 0;
  std::uint64_t probe_down_from = 0;  // the first probe call of the outage (0: none)
  std::uint64_t probe_down_for = 0;   // how many calls it lasts
  probe_fault probe_how = probe_fault::none;
  std::uint64_t publication_gone_from = 0;  // the first publication check that finds it gone (0: never)
  std::uint64_t publication_gone_for = 0;   // how many checks it stays gone
  bool keepalives_ahead = false;
};

inline auto describe(const fault_plan& p) -> std::string {
  std::string out = "  crashes at steps";
  for (std::size_t i = 0; i < p.crashes.size(); ++i) {
    out += ' ' + std::to_string(p.crashes[i]) + (i < p.ack_lost.size() && p.ack_lost[i] ? "(ack lost)" : "");
  }
  if (p.failing_calls.empty()) {
    out += "\n  no sink call fails";
  } else {
    out += "\n  failing sink calls";
    for (auto c : p.failing_calls) out += ' ' + std::to_string(c);
    out += p.how == sink_fault::exception ? " (throwing)" : " (returning an error)";
  }
  out += "\n  landing order seed " + std::to_string(p.seed) + '\n';
  if (p.probe_down_for > 0) {
    out += "  side connection " + std::string{p.probe_how == probe_fault::refused ? "refused" : "failing queries"} +
           " from its call " + std::to_string(p.probe_down_from) + " for " + std::to_string(p.probe_down_for) +
           " calls\n";
  }
  if (p.publication_gone_for > 0) {
    out += "  the publication gone from publication check " + std::to_string(p.publication_gone_from) + " for " +
           std::to_string(p.publication_gone_for) + " checks\n";
  }
  if (p.keepalives_ahead) out += "  every keepalive reports the end of the WAL\n";
  return out;
}

// @p Probe: the side connection's model (the simulated one; a test's broken one derives from it).
template <class C, class S, class Sink, class State, class Probe = sim_probe>
class explorer {
  using pipeline_type = pipeline<pgoutput_decoder, C, S, Sink>;

 public:
  explorer(const subject<C, S, Sink, State>& what, const explore_options& options)
      : what_(what), o_(options), kinds_(kinds_sent(options.streaming, options.two_phase)) {}

  auto run() -> exploration {
    exploration found;
    for (std::size_t n = 1; n <= o_.exhaustive_events && found; ++n) exhaust(n, found);
    std::mt19937_64 rng{o_.seed};
    for (std::size_t i = 0; i < o_.random_schedules && found; ++i) {
      const world w = random_world(rng, o_.max_events, kinds_);
      const auto steps = count_steps(w);
      const auto probe_calls = probe_calls_;
      const auto publication_checks = publication_checks_;
      fault_plan plan;
      plan.seed = rng();
      // A side connection that goes down for a while (a tenth of the schedules), a publication
      // dropped for a while (a quarter of those whose sessions check it), and keepalives that run
      // ahead of what was sent (a third).
      if (rng() % 10U == 0) {
        plan.probe_down_from = 1 + rng() % (probe_calls + 1);
        plan.probe_down_for = 1 + rng() % 24U;
        plan.probe_how = (rng() & 1U) == 0 ? probe_fault::refused : probe_fault::query_error;
      }
      if (publication_checks > 0 && rng() % 4U == 0) {
        plan.publication_gone_from = 1 + rng() % (publication_checks + 1);
        plan.publication_gone_for = 1 + rng() % 3U;
      }
      plan.keepalives_ahead = rng() % 3U == 0;
      std::uniform_int_distribution<std::uint64_t> at{1, steps + steps / 2 + 1};
      std::uniform_int_distribution<std::size_t> crashes{0, o_.max_crashes};
      for (std::size_t c = crashes(rng); c > 0; --c) plan.crashes.push_back(at(rng));
      std::sort(plan.crashes.begin(), plan.crashes.end());
      plan.crashes.erase(std::unique(plan.crashes.begin(), plan.crashes.end()), plan.crashes.end());
      for (std::size_t c = 0; c < plan.crashes.size(); ++c) plan.ack_lost.push_back((rng() & 3U) == 0);
      if (o_.sink_faults && (rng() & 1U) == 0) {
        plan.failing_calls.insert(1 + rng() % (w.events.size() + 1));
        plan.how = (rng() & 1U) == 0 ? sink_fault::error : sink_fault::exception;
      }
      check(w, plan, found);
    }
    return found;
  }

 private:
  // Every world of @p n entries (of the kinds the session is sent), each crashed once at each of
  // its steps, the acknowledgement kept and lost.
  auto exhaust(std::size_t n, exploration& found) -> void {
    std::vector<std::size_t> kinds(n, 0);
    for (;;) {
      world w;
      for (auto k : kinds) w.events.push_back({.kind = kinds_[k], .rows = 2});
      const auto steps = count_steps(w);
      for (std::uint64_t at = 1; at <= steps && found; ++at) {
        for (const bool lost : {false, true}) {
          check(w,
                fault_plan{
                    .crashes = {at}, .ack_lost = {lost}, .failing_calls = {}, .how = sink_fault::error, .seed = at},
                found);
          if (!found) return;
        }
      }
      std::size_t i = 0;
      while (i < n && ++kinds[i] == kinds_.size()) kinds[i++] = 0;
      if (i == n) return;
    }
  }

  // How many steps a run of @p w without faults has.
  auto count_steps(const world& w) -> std::uint64_t {
    static_cast<void>(attempt(w, fault_plan{}));
    return steps_;
  }

  // Runs one schedule and, on a broken promise, shrinks it and reports it.
  auto check(const world& w, const fault_plan& plan, exploration& found) -> void {
    ++found.schedules;
    auto broken = attempt(w, plan);
    found.crashes += crashes_;
    found.halts += halts_;
    found.idle_advances += idle_advances_;
    found.side_check_failures += side_check_failures_;
    found.publication_halts += publication_halts_;
    if (!broken) return;
    world small = w;
    for (bool shrunk = true; shrunk;) {
      shrunk = false;
      for (std::size_t i = 0; i < small.events.size() && small.events.size() > 1; ++i) {
        world fewer = small;
        fewer.events.erase(fewer.events.begin() + static_cast<std::ptrdiff_t>(i));
        if (auto again = attempt(fewer, plan)) {
          small = std::move(fewer);
          broken = std::move(again);
          shrunk = true;
          break;
        }
      }
    }
    found.failure =
        *broken + "\nseed " + std::to_string(o_.seed) + ", schedule (shrunk):\n" + describe(small) + describe(plan);
  }

  // --- one run of a schedule -------------------------------------------------------------------

  // An asynchronous sink's write in flight: it lands (in the order the writes were made, as a
  // broker's pipelined writes do), then its confirmation arrives (in any order).
  struct landing {
    std::function<void(State&)> write;
    confirmation confirm;
    bool landed = false;
  };
  enum class ending { completed, crashed, halted };

  // Runs @p w under @p plan over as many incarnations as it takes; what broke, if anything.
  auto attempt(const world& w, const fault_plan& plan) -> std::optional<std::string> {
    wal_.emplace(w);
    expected_ = wal_->expected();
    plan_ = &plan;
    rng_.seed(plan.seed);
    live_ = std::make_unique<State>();
    slot_ = sim_slot{};
    now_ = std::chrono::steady_clock::time_point{std::chrono::hours(1)};
    steps_ = 0;
    calls_ = 0;
    probe_calls_ = 0;
    publication_checks_ = 0;
    crashes_ = 0;
    halts_ = 0;
    idle_advances_ = 0;
    side_check_failures_ = 0;
    publication_halts_ = 0;
    broken_.reset();
    const std::size_t most =
        plan.crashes.size() + plan.failing_calls.size() + plan.probe_down_for + plan.publication_gone_for + 2;
    for (std::size_t n = 0; n < most && !broken_; ++n) {
      const auto e = incarnation();
      if (broken_) break;
      if (e == ending::completed) {
        final_check();
        return broken_;
      }
    }
    if (!broken_) broken_ = "the run did not complete: it halted again and again";
    return broken_;
  }

  auto incarnation() -> ending {
    crashed_ = false;
    faulted_ = false;
    probe_faulted_ = false;
    publication_gone_ = false;
    landings_.clear();
    try {
      const auto e = incarnate();
      // The incarnation's sink and pipeline are gone: the next one starts on what survived.
      if (e == ending::crashed) live_ = std::move(survivor_);
      return e;
    } catch (const std::exception& e) {
      broken_ = std::string{"an exception escaped the engine (the process would abort): "} + e.what();
    } catch (...) {
      broken_ = "an exception escaped the engine (the process would abort)";
    }
    return ending::halted;
  }

  auto incarnate() -> ending {
    simulation<State> sim{
        {.crash_point = [this] { step(); },
         .fault = [this] { return fault(); },
         .later = [this](std::function<void(State&)> write,
                         confirmation c) { landings_.push_back({std::move(write), std::move(c), false}); }}};
    auto sink = what_.sink(*live_, sim);
    telemetry::dispatcher events;
    events.attach([this](const telemetry::event_record& e) {
      if (telemetry::to_string(e).find(secret_value) != std::string::npos && !broken_) {
        broken_ = "a row value reached a telemetry event";
      }
      if (e.name == telemetry::events::connection_side_check_failed::name) ++side_check_failures_;
      if (e.name == telemetry::events::checkpoint_advanced::name) {
        const auto* kind = e.find("kind");
        if (kind != nullptr && telemetry::to_string(*kind) == "idle") ++idle_advances_;
      }
    });
    pipeline_options po;
    po.conninfo = "simulated";
    po.slot = "simulated";
    po.start = start::go_forward{};
    // The checks beside the stream, on the simulated probe: often enough that a pause (two seconds)
    // sees each of them several times, and that a state mirror's idle advance (bounded by what the
    // probe says the walsender sent) happens; two failures of a check in a row halt.
    po.status_interval = std::chrono::milliseconds(250);
    po.heartbeat_interval = std::chrono::milliseconds(1000);
    po.publication_check_interval = std::chrono::milliseconds(500);
    po.max_side_check_failures = 2;
    pgoutput_options pg{.publications = {"pub"},
                        .streaming = o_.streaming,
                        .two_phase = o_.two_phase,
                        .messages = replicant::detail::has_handle_message<Sink>};
    pipeline_type p{*sink, std::move(pg), what_.policy(*live_, sim), what_.spill(), std::move(po), &events};
    engine_run<pipeline_type> r{p, now_};
    sim_server server{
        *wal_,
        slot_,
        {.before_frame = [this, &r] { return before_frame(r); }, .drained = [this, &p] { return drained(p); }},
        now_,
        plan_->keepalives_ahead};
    run_ = &r;
    server_ = &server;
    auto stream = r.connect(server);
    if (crashed_) return crash_end();
    if (!stream) return halted(r);
    Probe probe{*wal_, *stream, [this](probe_call c) { return probe_fault_for(c); }};
    r.stream_session(*stream, probe);
    if (crashed_) return crash_end();
    run_ = nullptr;
    server_ = nullptr;
    check_acknowledged(server.reported());
    if (r.halted()) return halted(r);
    check_publication_heeded();  // nor does the session end as if nothing were wrong
    check_acknowledged(r.durable());
    slot_.confirmed = std::max({slot_.confirmed, r.durable(), server.reported()});
    return ending::completed;
  }

  // Before the session loop receives a frame: a crash point, the checks, writes that land.
  auto before_frame(engine_run<pipeline_type>& r) -> bool {
    check_publication_heeded();
    step();
    if (crashed_) return false;
    check_acknowledged(r.durable());
    land_some();
    return !crashed_;
  }

  // The WAL is drained: every write in flight lands, then the pipeline stops cleanly.
  auto drained(pipeline_type& p) -> bool {
    while (!landings_.empty() && !crashed_) {
      if (!landings_.front().landed) land_next();
      if (!crashed_) confirm(0);
    }
    if (crashed_) return false;
    p.stop();
    return true;
  }

  // A crash point: the process dies here when the plan says so.
  auto step() -> void {
    if (crashed_) return;
    ++steps_;
    if (std::binary_search(plan_->crashes.begin(), plan_->crashes.end(), steps_)) crash();
  }

  // What survives: the durable state as it is now, writes in flight that land anyway (or not), and
  // the slot at what the engine may have reported last (or, the acknowledgement lost, what it was).
  auto crash() -> void {
    crashed_ = true;
    ++crashes_;
    auto survived = std::make_unique<State>(*live_);
    // The writes in flight land in order: some first ones of them survive the crash.
    std::size_t in_flight = 0;
    for (const auto& l : landings_) in_flight += l.landed ? 0U : 1U;
    std::size_t lands = rng_() % (in_flight + 1);
    for (auto& l : landings_) {
      if (!l.landed && lands > 0) {
        l.write(*survived);
        --lands;
      }
    }
    landings_.clear();
    const auto nth = static_cast<std::size_t>(std::lower_bound(plan_->crashes.begin(), plan_->crashes.end(), steps_) -
                                              plan_->crashes.begin());
    const bool lost = nth < plan_->ack_lost.size() && plan_->ack_lost[nth];
    // The slot holds what the engine reported; or, the last report lost, what it held before. A
    // report may carry any durable position (the keepalive guard sends one whenever a call is
    // slow), so a kept report is taken to be the latest durable one.
    if (server_ != nullptr) check_acknowledged(server_->reported());
    if (!lost && run_ != nullptr) {
      slot_.confirmed = std::max({slot_.confirmed, run_->durable(), server_ != nullptr ? server_->reported() : lsn{}});
    }
    check_acknowledged(slot_.confirmed, *survived);
    survivor_ = std::move(survived);
  }

  auto crash_end() -> ending {
    run_ = nullptr;
    server_ = nullptr;
    return ending::crashed;
  }

  auto fault() -> sink_fault {
    if (crashed_) return sink_fault::none;
    ++calls_;
    if (plan_->failing_calls.count(calls_) == 0) return sink_fault::none;
    faulted_ = true;
    return plan_->how;
  }

  // Whether the side connection's call @p c fails: during the planned outage, every call (refused:
  // opening one too; failing queries: a new connection works).
  auto probe_fault_for(probe_call c) -> probe_fault {
    ++probe_calls_;
    if (crashed_) return probe_fault::none;
    if (c == probe_call::publications) {
      ++publication_checks_;
      if (publication_checks_ >= plan_->publication_gone_from &&
          publication_checks_ < plan_->publication_gone_from + plan_->publication_gone_for) {
        publication_gone_ = true;
        return probe_fault::publication_dropped;
      }
    }
    if (plan_->probe_down_for == 0) return probe_fault::none;
    if (probe_calls_ < plan_->probe_down_from || probe_calls_ >= plan_->probe_down_from + plan_->probe_down_for) {
      return probe_fault::none;
    }
    if (c == probe_call::open && plan_->probe_how != probe_fault::refused) return probe_fault::none;
    probe_faulted_ = true;
    return plan_->probe_how;
  }

  // A halt: it must have been a fault's (a planned one), its description value-free. The process
  // lives on: writes in flight land, the slot holds what was reported.
  auto halted(engine_run<pipeline_type>& r) -> ending {
    run_ = nullptr;
    server_ = nullptr;
    if (crashed_) return ending::crashed;
    ++halts_;
    const auto& h = r.halt_of();
    if (!h) {
      broken_ = "the engine stopped without a halt";
    } else if (describe(*h).find(secret_value) != std::string::npos) {
      broken_ = "a row value reached a halt's description";
    } else if (!planned(h->reason)) {
      broken_ = std::string{"halted without a fault to halt for: "} + std::string{to_string(h->reason)};
    }
    if (h && h->reason == halt_reason::publication_missing) ++publication_halts_;
    for (auto& l : landings_) {
      if (!l.landed) l.write(*live_);
    }
    landings_.clear();
    slot_.confirmed = std::max(slot_.confirmed, r.durable());
    return ending::halted;
  }

  // A check that found the publication gone ends the session with a halt: no frame is taken after
  // it, and the session does not end as if nothing were wrong.
  auto check_publication_heeded() -> void {
    if (publication_gone_ && !broken_) broken_ = "the publication was gone and the pipeline went on";
  }

  // Whether this incarnation's schedule gave the pipeline cause to halt for @p reason: a blind
  // check only when the side connection failed, a missing publication only when a check found it
  // gone, anything else only a sink's fault.
  [[nodiscard]] auto planned(halt_reason reason) const noexcept -> bool {
    switch (reason) {
      case halt_reason::side_check_failed: return probe_faulted_;
      case halt_reason::publication_missing: return publication_gone_;
      default: return faulted_;
    }
  }

  // An asynchronous sink's writes move on: the next one lands, or a landed one is confirmed (one
  // at random), or nothing happens yet.
  auto land_some() -> void {
    if (landings_.empty() || (rng_() % 3U) == 0) return;
    const bool any_landed = std::any_of(landings_.begin(), landings_.end(), [](const auto& l) { return l.landed; });
    const bool all_landed = std::all_of(landings_.begin(), landings_.end(), [](const auto& l) { return l.landed; });
    if (!all_landed && (!any_landed || (rng_() & 1U) == 0)) return land_next();
    std::vector<std::size_t> landed;
    for (std::size_t i = 0; i < landings_.size(); ++i) {
      if (landings_[i].landed) landed.push_back(i);
    }
    confirm(landed[rng_() % landed.size()]);
  }

  // The oldest write in flight lands (a crash point before and after).
  auto land_next() -> void {
    const auto next = std::find_if(landings_.begin(), landings_.end(), [](const auto& l) { return !l.landed; });
    step();
    if (crashed_) return;
    next->write(*live_);
    next->landed = true;
    step();
  }

  // The confirmation of landed write @p i arrives.
  auto confirm(std::size_t i) -> void {
    auto l = std::move(landings_[i]);
    landings_.erase(landings_.begin() + static_cast<std::ptrdiff_t>(i));
    l.confirm.confirm();
  }

  // --- the checks ------------------------------------------------------------------------------

  auto check_acknowledged(lsn acknowledged) -> void { check_acknowledged(acknowledged, *live_); }

  // Nothing acknowledged that the durable state lacks: every transaction whose commit ends at or
  // before the acknowledged position is stored.
  auto check_acknowledged(lsn acknowledged, const State& state) -> void {
    if (broken_) return;
    const auto stored = what_.stored(state);
    for (const auto& t : expected_) {
      if (wal_->end_of(t.commit_lsn) > acknowledged) break;
      const bool kept = std::any_of(stored.begin(), stored.end(),
                                    [&](const stored_transaction& s) { return s.commit_lsn == t.commit_lsn; });
      if (!kept) {
        broken_ = "acknowledged " + to_string(acknowledged) + " past transaction " + to_string(t.commit_lsn) +
                  ", which the durable state lacks (a crash now loses it)";
        return;
      }
    }
  }

  // Every committed transaction stored whole, in commit order: once, or at least once within the bound.
  auto final_check() -> void {
    if (broken_) return;
    const auto stored = what_.stored(*live_);
    std::vector<stored_transaction> first;
    for (const auto& s : stored) {
      if (std::none_of(first.begin(), first.end(), [&](const auto& f) { return f.commit_lsn == s.commit_lsn; })) {
        first.push_back(s);
      }
    }
    const std::size_t repeats = stored.size() - first.size();
    if (o_.promise == guarantee::exactly_once && repeats > 0) {
      broken_ = std::to_string(repeats) + " transaction(s) stored more than once";
      return;
    }
    if (repeats > (crashes_ + halts_) * o_.repeats_per_crash) {
      broken_ = std::to_string(repeats) + " repeats, more than the bound allows";
      return;
    }
    for (std::size_t i = 0; i < std::max(first.size(), expected_.size()); ++i) {
      if (i >= first.size()) {
        broken_ = "transaction " + to_string(expected_[i].commit_lsn) + " was lost";
        return;
      }
      if (i >= expected_.size()) {
        broken_ = "transaction " + to_string(first[i].commit_lsn) + " was stored but never committed";
        return;
      }
      if (first[i].commit_lsn != expected_[i].commit_lsn) {
        broken_ = "transaction " + to_string(expected_[i].commit_lsn) + " was lost or stored out of commit order";
        return;
      }
      if (first[i].changes != expected_[i].changes) {
        broken_ = "transaction " + to_string(expected_[i].commit_lsn) + " stored " + std::to_string(first[i].changes) +
                  " of its " + std::to_string(expected_[i].changes) + " changes";
        return;
      }
    }
  }

  const subject<C, S, Sink, State>& what_;
  explore_options o_;
  std::vector<event_kind> kinds_;  // the kinds the session is sent
  std::optional<wal> wal_;
  std::vector<expected_transaction> expected_;
  const fault_plan* plan_ = nullptr;
  std::mt19937_64 rng_;
  std::unique_ptr<State> live_;
  std::unique_ptr<State> survivor_;              // what a crash left, until the incarnation's sink is gone
  sim_slot slot_{};                              // the slot: what survives any crash on the server's side
  std::chrono::steady_clock::time_point now_{};  // the simulated time, which goes on across crashes
  std::uint64_t steps_ = 0;
  std::uint64_t calls_ = 0;
  std::uint64_t probe_calls_ = 0;         // calls on the side connection, over the whole run
  std::uint64_t publication_checks_ = 0;  // of them, publication checks
  std::uint64_t crashes_ = 0;
  std::uint64_t halts_ = 0;
  std::uint64_t idle_advances_ = 0;        // a state mirror's slot moved with nothing delivered
  std::uint64_t side_check_failures_ = 0;  // checks beside the stream that could not be made
  std::uint64_t publication_halts_ = 0;    // halts for a publication a check found gone
  bool crashed_ = false;
  bool faulted_ = false;
  bool probe_faulted_ = false;     // a call on the side connection failed in this incarnation
  bool publication_gone_ = false;  // a check in this incarnation was told the publication is gone
  std::vector<landing> landings_;
  engine_run<pipeline_type>* run_ = nullptr;
  sim_server* server_ = nullptr;
  std::optional<std::string> broken_;
};

}  // namespace replicant::testing::detail

#endif  // REPLICANT_TESTING_DETAIL_EXPLORER_HPP
