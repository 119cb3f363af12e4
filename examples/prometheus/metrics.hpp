// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PROMETHEUS_METRICS_HPP
#define REPLICANT_EXAMPLES_PROMETHEUS_METRICS_HPP

/// @file
/// replicant-prometheus's metrics: the replication pipeline's telemetry events folded into the
/// counters, gauges and summaries of a prometheus-cpp registry, which prometheus-cpp's exposer
/// serves in the Prometheus text format (main.cpp).
///
/// Value-free by construction: telemetry carries no row value, and of what it carries only event
/// names, LSNs, counts, durations and halt reasons become samples. Label values come from fixed
/// vocabularies (the telemetry catalog, the halt reasons, the change operations), never from the
/// user: the slot and table names that some events carry are not exported.

#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/model/change.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <boost/hana/contains.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/summary.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace replicant::examples::prometheus {

namespace detail {

namespace hana = boost::hana;

// The number of catalogued telemetry events.
inline constexpr std::size_t event_count = telemetry::event_names.size();

// Per catalogued event (in catalog order): whether its entry lists a `duration` measurement.
// Computed from the catalog, so a new timed event gets its summary without a change here.
inline constexpr auto measures_duration = hana::unpack(telemetry::catalog, [](auto... e) {
  return std::array<bool, sizeof...(e)>{
      decltype(hana::contains(decltype(e)::type::measurements, hana::type_c<telemetry::keys::duration_t>))::value...};
});

// The change operations a sink counts, in change_op order.
inline constexpr std::array change_ops = {change_op::insert, change_op::update, change_op::delete_, change_op::truncate,
                                          change_op::snapshot};

// The position of @p name in the catalog, if it is there.
[[nodiscard]] constexpr auto event_index(std::string_view name) noexcept -> std::optional<std::size_t> {
  for (std::size_t i = 0; i < event_count; ++i) {
    if (telemetry::event_names[i] == name) return i;
  }
  return std::nullopt;
}

// The position of @p reason among replicant::halt_reasons.
[[nodiscard]] constexpr auto halt_index(halt_reason reason) noexcept -> std::optional<std::size_t> {
  for (std::size_t i = 0; i < halt_reasons.size(); ++i) {
    if (halt_reasons[i] == reason) return i;
  }
  return std::nullopt;
}

// The event name as a label value: without the `replicant.` every name starts with (the metric
// names carry it already), e.g. `sink.committed`.
[[nodiscard]] constexpr auto short_name(std::string_view name) noexcept -> std::string_view {
  constexpr std::string_view common = "replicant.";
  return name.starts_with(common) ? name.substr(common.size()) : name;
}

// A telemetry field as a count: its integer, or 0 when it is missing, of another kind or negative.
[[nodiscard]] inline auto count_of(const telemetry::field_value* v) noexcept -> double {
  const std::int64_t n = v != nullptr && std::holds_alternative<std::int64_t>(*v) ? std::get<std::int64_t>(*v) : 0;
  return n > 0 ? static_cast<double>(n) : 0.0;
}

// One metric family of @p Builder's kind in @p registry (prometheus::BuildCounter and the like).
template <class Builder>
[[nodiscard]] auto family(Builder build, ::prometheus::Registry& registry, const char* name, const char* help)
    -> decltype(auto) {
  return build().Name(name).Help(help).Register(registry);
}

}  // namespace detail

/**
 * The metrics of one replication pipeline, fed by its telemetry (observe()) and by its sink
 * (count_change()), kept in a prometheus-cpp registry (registry()) for an exposer to serve.
 *
 * | metric | type | from |
 * |---|---|---|
 * | `replicant_up` | gauge | 1 while the pipeline runs, 0 once it halted or stopped (set_running()) |
 * | `replicant_connected` | gauge | 1 after `connection.connected`, 0 after `connection.disconnected` |
 * | `replicant_events_total{event}` | counter | every catalogued event, e.g. `event="sink.committed"` |
 * | `replicant_event_duration_seconds{event}` | summary | the `duration` measurement of the events that have one |
 * | `replicant_checkpoint_lsn` | gauge | `commit_lsn` of the last `checkpoint.advanced`: the acknowledged WAL position, in bytes |
 * | `replicant_transactions_total` | counter | `transaction.assembled` events |
 * | `replicant_transaction_changes_total` | counter | their `change_count` |
 * | `replicant_transaction_bytes_total` | counter | their `byte_size` |
 * | `replicant_sink_changes_total{op}` | counter | changes the sink received, by operation (count_change()) |
 * | `replicant_halts_total{reason}` | counter | halts, by reason (record_halt()) |
 *
 * Every series exists from the start, at 0, so that `rate()` and alerts see the first increase.
 * Samples are doubles, as in every Prometheus client: counts and WAL positions are exact below
 * 2^53.
 *
 * @par Example
 * @code
 * telemetry_metrics metrics;
 * replicant::telemetry::dispatcher events;
 * events.attach([&metrics](const replicant::telemetry::event_record& e) { metrics.observe(e); });
 * prometheus::Exposer exposer{"127.0.0.1:9464"};
 * exposer.RegisterCollectable(metrics.registry());
 * @endcode
 *
 * @par Thread safety
 * Every member may be called from any thread at any time: the pipeline emits from its connection
 * and applier threads while a scrape collects. Counters and gauges are atomics; a duration summary
 * takes a short lock of its own. A scrape is not a snapshot across metrics (as with any Prometheus
 * client).
 */
class telemetry_metrics {
 public:
  /**
   * A registry with every series at 0, `replicant_up` 0.
   * @throws std::bad_alloc only (the names and labels are fixed and valid).
   */
  telemetry_metrics() {
    namespace prom = ::prometheus;
    auto& reg = *registry_;
    up_ = &detail::family(prom::BuildGauge, reg, "replicant_up",
                          "Whether the replication pipeline is running (0 once it halted or was stopped).")
               .Add({});
    connected_ = &detail::family(prom::BuildGauge, reg, "replicant_connected",
                                 "Whether the replication connection is established.")
                      .Add({});
    auto& events = detail::family(prom::BuildCounter, reg, "replicant_events_total",
                                  "Telemetry events emitted by the replication pipeline, by event.");
    auto& durations = detail::family(prom::BuildSummary, reg, "replicant_event_duration_seconds",
                                     "Time taken, from the telemetry events that measure a duration, by event.");
    for (std::size_t i = 0; i < detail::event_count; ++i) {
      const std::string name{detail::short_name(telemetry::event_names[i])};
      events_[i] = &events.Add({{"event", name}});
      // No quantiles: the sum and the count, from which rate() gives the mean.
      if (detail::measures_duration[i]) durations_[i] = &durations.Add({{"event", name}}, prom::Summary::Quantiles{});
    }
    checkpoint_lsn_ = &detail::family(prom::BuildGauge, reg, "replicant_checkpoint_lsn",
                                      "The last acknowledged WAL position (replicant.checkpoint.advanced), as a byte "
                                      "position.")
                           .Add({});
    transactions_ = &detail::family(prom::BuildCounter, reg, "replicant_transactions_total",
                                    "Committed transactions assembled for the sink.")
                         .Add({});
    changes_ = &detail::family(prom::BuildCounter, reg, "replicant_transaction_changes_total",
                               "Changes of the transactions assembled for the sink.")
                    .Add({});
    bytes_ = &detail::family(prom::BuildCounter, reg, "replicant_transaction_bytes_total",
                             "Bytes of the transactions assembled for the sink.")
                  .Add({});
    auto& sink_changes = detail::family(prom::BuildCounter, reg, "replicant_sink_changes_total",
                                        "Changes the sink received, by operation.");
    for (std::size_t i = 0; i < detail::change_ops.size(); ++i) {
      sink_changes_[i] = &sink_changes.Add({{"op", std::string{to_string(detail::change_ops[i])}}});
    }
    auto& halts = detail::family(prom::BuildCounter, reg, "replicant_halts_total",
                                 "Halts of the replication pipeline, by reason.");
    for (std::size_t i = 0; i < halt_reasons.size(); ++i) {
      halts_[i] = &halts.Add({{"reason", std::string{to_string(halt_reasons[i])}}});
    }
  }

  /// The registry holding every series, for `prometheus::Exposer::RegisterCollectable` (which
  /// keeps a weak reference). Never throws.
  [[nodiscard]] auto registry() const noexcept -> std::shared_ptr<::prometheus::Registry> { return registry_; }

  /**
   * Folds the event @p e into the metrics: a telemetry handler. Events outside the catalog are
   * ignored.
   * @throws std::bad_alloc only, from a duration summary's sample buffer (a dispatcher then
   * detaches the handler rather than let it stop replication).
   */
  auto observe(const telemetry::event_record& e) -> void {
    const auto index = detail::event_index(e.name);
    if (!index) return;
    events_[*index]->Increment();
    if (const auto* d = e.find("duration");
        durations_[*index] != nullptr && d != nullptr && std::holds_alternative<std::chrono::nanoseconds>(*d)) {
      const auto ns = std::get<std::chrono::nanoseconds>(*d).count();
      durations_[*index]->Observe(ns > 0 ? static_cast<double>(ns) / 1e9 : 0.0);
    }
    if (e.name == "replicant.connection.connected") {
      connected_->Set(1);
    } else if (e.name == "replicant.connection.disconnected") {
      connected_->Set(0);
    } else if (e.name == "replicant.checkpoint.advanced") {
      if (const auto* at = e.find("commit_lsn"); at != nullptr && std::holds_alternative<lsn>(*at)) {
        checkpoint_lsn_->Set(static_cast<double>(std::get<lsn>(*at).value()));
      }
    } else if (e.name == "replicant.transaction.assembled") {
      transactions_->Increment();
      changes_->Increment(detail::count_of(e.find("change_count")));
      bytes_->Increment(detail::count_of(e.find("byte_size")));
    }
  }

  /// Counts one change of operation @p op received by the sink. Never throws.
  auto count_change(change_op op) noexcept -> void {
    const auto i = static_cast<std::size_t>(op);
    if (i < sink_changes_.size()) sink_changes_[i]->Increment();
  }

  /// Counts a halt for @p reason. Never throws.
  auto record_halt(halt_reason reason) noexcept -> void {
    if (const auto i = detail::halt_index(reason)) halts_[*i]->Increment();
  }

  /// Sets `replicant_up` (and clears `replicant_connected` when @p running is false). Never throws.
  auto set_running(bool running) noexcept -> void {
    up_->Set(running ? 1 : 0);
    if (!running) connected_->Set(0);
  }

 private:
  // The series live in the registry; these point into it, and the registry outlives them.
  std::shared_ptr<::prometheus::Registry> registry_ = std::make_shared<::prometheus::Registry>();
  std::array<::prometheus::Counter*, detail::event_count> events_{};
  std::array<::prometheus::Summary*, detail::event_count> durations_{};  // null for untimed events
  std::array<::prometheus::Counter*, halt_reasons.size()> halts_{};
  std::array<::prometheus::Counter*, detail::change_ops.size()> sink_changes_{};
  ::prometheus::Gauge* up_ = nullptr;
  ::prometheus::Gauge* connected_ = nullptr;
  ::prometheus::Gauge* checkpoint_lsn_ = nullptr;
  ::prometheus::Counter* transactions_ = nullptr;
  ::prometheus::Counter* changes_ = nullptr;
  ::prometheus::Counter* bytes_ = nullptr;
};

}  // namespace replicant::examples::prometheus

#endif  // REPLICANT_EXAMPLES_PROMETHEUS_METRICS_HPP
