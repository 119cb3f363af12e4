// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_EXAMPLES_PROMETHEUS_METRICS_HPP
#define REPLICANT_EXAMPLES_PROMETHEUS_METRICS_HPP

/// @file
/// replicant-prometheus's metrics: the replication pipeline's telemetry events folded into
/// counters and gauges, and rendered in the Prometheus text exposition format (version 0.0.4).
///
/// Value-free by construction: telemetry carries no row value, and of what it carries only event
/// names, LSNs, counts, durations and halt reasons become samples. Label values come from fixed
/// vocabularies (the telemetry catalog, the halt reasons, the change operations), never from the
/// user: the slot and table names that some events carry are not exported.

#include <replicant/model/change.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/telemetry/telemetry.hpp>

#include <boost/hana/contains.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
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

[[nodiscard]] inline auto int_of(const telemetry::field_value* v) noexcept -> std::int64_t {
  return v != nullptr && std::holds_alternative<std::int64_t>(*v) ? std::get<std::int64_t>(*v) : 0;
}

}  // namespace detail

/**
 * Appends @p value as a label value of the text format: `\` as `\\`, `"` as `\"` and a line feed
 * as `\n`; everything else as it is. @throws std::bad_alloc only.
 */
inline auto append_label_value(std::string& out, std::string_view value) -> void {
  for (const char c : value) {
    switch (c) {
      case '\\': out += "\\\\"; break;
      case '"': out += "\\\""; break;
      case '\n': out += "\\n"; break;
      default: out.push_back(c); break;
    }
  }
}

/**
 * The metrics of one replication pipeline, fed by its telemetry (observe()) and by its sink
 * (count_change()), and rendered for a scrape (render()).
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
 *
 * @par Thread safety
 * Every member may be called from any thread at any time: the pipeline emits from its connection
 * and applier threads while a scrape renders. Counters are atomics; a render is not a snapshot
 * across metrics (as with any Prometheus client).
 */
class telemetry_metrics {
 public:
  /// All series at 0, `replicant_up` 0. Never throws.
  telemetry_metrics() noexcept = default;

  /**
   * Folds the event @p e into the metrics: a telemetry handler. Events outside the catalog are
   * ignored. Never throws.
   */
  auto observe(const telemetry::event_record& e) noexcept -> void {
    const auto index = detail::event_index(e.name);
    if (!index) return;
    events_[*index].fetch_add(1, std::memory_order_relaxed);
    if (const auto* d = e.find("duration"); d != nullptr && std::holds_alternative<std::chrono::nanoseconds>(*d)) {
      const auto ns = std::get<std::chrono::nanoseconds>(*d).count();
      duration_ns_[*index].fetch_add(ns > 0 ? static_cast<std::uint64_t>(ns) : 0U, std::memory_order_relaxed);
      durations_[*index].fetch_add(1, std::memory_order_relaxed);
    }
    if (e.name == "replicant.connection.connected") {
      connected_.store(true);
    } else if (e.name == "replicant.connection.disconnected") {
      connected_.store(false);
    } else if (e.name == "replicant.checkpoint.advanced") {
      if (const auto* at = e.find("commit_lsn"); at != nullptr && std::holds_alternative<lsn>(*at)) {
        checkpoint_lsn_.store(std::get<lsn>(*at).value());
      }
    } else if (e.name == "replicant.transaction.assembled") {
      transactions_.fetch_add(1, std::memory_order_relaxed);
      changes_.fetch_add(non_negative(detail::int_of(e.find("change_count"))), std::memory_order_relaxed);
      bytes_.fetch_add(non_negative(detail::int_of(e.find("byte_size"))), std::memory_order_relaxed);
    }
  }

  /// Counts one change of operation @p op received by the sink. Never throws.
  auto count_change(change_op op) noexcept -> void {
    const auto i = static_cast<std::size_t>(op);
    if (i < sink_changes_.size()) sink_changes_[i].fetch_add(1, std::memory_order_relaxed);
  }

  /// Counts a halt for @p reason. Never throws.
  auto record_halt(halt_reason reason) noexcept -> void {
    if (const auto i = detail::halt_index(reason)) halts_[*i].fetch_add(1, std::memory_order_relaxed);
  }

  /// Sets `replicant_up` (and clears `replicant_connected` when @p running is false). Never throws.
  auto set_running(bool running) noexcept -> void {
    up_.store(running);
    if (!running) connected_.store(false);
  }

  /**
   * The metrics in the Prometheus text format, version 0.0.4: for each metric a `# HELP` and a
   * `# TYPE` line, then one `name{labels} value` line per series, each ending in a line feed.
   * @throws std::bad_alloc only.
   */
  [[nodiscard]] auto render() const -> std::string {
    std::string out;
    out.reserve(8192);
    gauge(out, "replicant_up", "Whether the replication pipeline is running (0 once it halted or was stopped).",
          up_.load() ? 1U : 0U);
    gauge(out, "replicant_connected", "Whether the replication connection is established.",
          connected_.load() ? 1U : 0U);

    header(out, "replicant_events_total", "counter", "Telemetry events emitted by the replication pipeline, by event.");
    for (std::size_t i = 0; i < detail::event_count; ++i) {
      sample(out, "replicant_events_total", "event", detail::short_name(telemetry::event_names[i]), events_[i].load());
    }

    header(out, "replicant_event_duration_seconds", "summary",
           "Time taken, from the telemetry events that measure a duration, by event.");
    for (std::size_t i = 0; i < detail::event_count; ++i) {
      if (!detail::measures_duration[i]) continue;
      const auto name = detail::short_name(telemetry::event_names[i]);
      out += "replicant_event_duration_seconds_sum{event=\"";
      append_label_value(out, name);
      out += "\"} ";
      append_seconds(out, duration_ns_[i].load());
      out += '\n';
      sample(out, "replicant_event_duration_seconds_count", "event", name, durations_[i].load());
    }

    gauge(out, "replicant_checkpoint_lsn",
          "The last acknowledged WAL position (replicant.checkpoint.advanced), as a byte position.",
          checkpoint_lsn_.load());
    counter(out, "replicant_transactions_total", "Committed transactions assembled for the sink.",
            transactions_.load());
    counter(out, "replicant_transaction_changes_total", "Changes of the transactions assembled for the sink.",
            changes_.load());
    counter(out, "replicant_transaction_bytes_total", "Bytes of the transactions assembled for the sink.",
            bytes_.load());

    header(out, "replicant_sink_changes_total", "counter", "Changes the sink received, by operation.");
    for (std::size_t i = 0; i < detail::change_ops.size(); ++i) {
      sample(out, "replicant_sink_changes_total", "op", to_string(detail::change_ops[i]), sink_changes_[i].load());
    }

    header(out, "replicant_halts_total", "counter", "Halts of the replication pipeline, by reason.");
    for (std::size_t i = 0; i < halt_reasons.size(); ++i) {
      sample(out, "replicant_halts_total", "reason", to_string(halt_reasons[i]), halts_[i].load());
    }
    return out;
  }

 private:
  [[nodiscard]] static auto non_negative(std::int64_t v) noexcept -> std::uint64_t {
    return v > 0 ? static_cast<std::uint64_t>(v) : 0U;
  }

  static auto header(std::string& out, std::string_view name, std::string_view type, std::string_view help) -> void {
    out += "# HELP ";
    out += name;
    out += ' ';
    out += help;
    out += "\n# TYPE ";
    out += name;
    out += ' ';
    out += type;
    out += '\n';
  }

  static auto sample(std::string& out, std::string_view name, std::string_view label, std::string_view label_value,
                     std::uint64_t value) -> void {
    out += name;
    out += '{';
    out += label;
    out += "=\"";
    append_label_value(out, label_value);
    out += "\"} ";
    out += std::to_string(value);
    out += '\n';
  }

  static auto gauge(std::string& out, std::string_view name, std::string_view help, std::uint64_t value) -> void {
    header(out, name, "gauge", help);
    out += name;
    out += ' ';
    out += std::to_string(value);
    out += '\n';
  }

  static auto counter(std::string& out, std::string_view name, std::string_view help, std::uint64_t value) -> void {
    header(out, name, "counter", help);
    out += name;
    out += ' ';
    out += std::to_string(value);
    out += '\n';
  }

  // Nanoseconds as seconds, in the shortest decimal form that reads back exactly.
  static auto append_seconds(std::string& out, std::uint64_t ns) -> void {
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(ns) / 1e9);
    out.append(buf, r.ptr);
  }

  std::array<std::atomic<std::uint64_t>, detail::event_count> events_{};
  std::array<std::atomic<std::uint64_t>, detail::event_count> durations_{};
  std::array<std::atomic<std::uint64_t>, detail::event_count> duration_ns_{};
  std::array<std::atomic<std::uint64_t>, halt_reasons.size()> halts_{};
  std::array<std::atomic<std::uint64_t>, detail::change_ops.size()> sink_changes_{};
  std::atomic<std::uint64_t> checkpoint_lsn_{0};
  std::atomic<std::uint64_t> transactions_{0};
  std::atomic<std::uint64_t> changes_{0};
  std::atomic<std::uint64_t> bytes_{0};
  std::atomic<bool> up_{false};
  std::atomic<bool> connected_{false};
};

}  // namespace replicant::examples::prometheus

#endif  // REPLICANT_EXAMPLES_PROMETHEUS_METRICS_HPP
