// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TELEMETRY_TELEMETRY_HPP
#define REPLICANT_TELEMETRY_TELEMETRY_HPP

/// @file
/// Value-free telemetry: the compile-time catalog of replicant's thirty-four events, the allowlisted
/// keys they may carry, `telemetry::emit`, and the `telemetry::dispatcher` user handlers attach to.
///
/// **Value-free by construction.** An event carries only allowlisted keys — `commit_lsn`,
/// `change_count`, `byte_size`, `lag_ms`, `duration`, `attempt`, `max_retries`, `transactional`,
/// `table`, `slot_name`, `reason`, `error_class`, `kind` as metadata, `duration`, `lag_bytes` and
/// `lag` (the same lag, under the reference's name) as measurements — and each key accepts only
/// its own value type: an @ref replicant::lsn, an integer, a `std::chrono` duration, a `bool`, a
/// @ref replicant::table_ref, a @ref replicant::slot_name, a @ref replicant::halt_reason, a
/// @ref replicant::errc or a @ref replicant::telemetry::kind "telemetry::kind". No key takes a
/// string, so a row value cannot be emitted: the attempt does not compile, with a `static_assert`
/// message starting `replicant: `, and neither does a key that the event's catalog entry does not
/// list. The catalog is a Boost.Hana tuple of event types, checked when this header is compiled.
///
/// @par Example: observing a pipeline
/// @code
/// replicant::telemetry::dispatcher events;
/// events.attach([](const replicant::telemetry::event_record& e) {
///   if (e.name == "replicant.sink.committed") metrics.observe(e.find("duration"));
///   std::clog << replicant::telemetry::to_string(e) << '\n';
/// });
/// @endcode
///
/// @par Example: emitting (inside replicant, or a custom policy model)
/// @code
/// namespace t = replicant::telemetry;
/// t::emit<t::events::sink_committed>(events, t::keys::commit_lsn = txn.commit_lsn(),
///                                    t::keys::duration = elapsed);
/// @endcode

#include <replicant/core/error.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/core/identifier.hpp>
#include <replicant/core/lsn.hpp>
#include <replicant/core/slot_invalidation.hpp>
#include <replicant/telemetry/detail/catalog.hpp>

#include <boost/hana/tuple.hpp>
#include <boost/hana/type.hpp>
#include <boost/hana/unpack.hpp>

#include <array>
#include <atomic>
#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

namespace replicant::telemetry {

/**
 * The closed set of values of the `kind` metadata key; which ones an event uses is listed on the
 * event.
 */
enum class kind {
  primary = 1,             ///< `connection_connected`: the server is a primary.
  standby,                 ///< `connection_connected`: the server is a standby (in recovery).
  idle,                    ///< `checkpoint_advanced`: an idle advance over WAL with nothing published.
  additive,                ///< schema change events: only columns were added (applied automatically).
  destructive,             ///< schema change events: a column dropped, narrowed, or a new replica identity.
  wal_removed,             ///< `connection_slot_invalidated`: WAL the slot needed was removed.
  rows_removed,            ///< `connection_slot_invalidated`: catalog rows the slot needed were vacuumed.
  wal_level_insufficient,  ///< `connection_slot_invalidated`: `wal_level` was lowered below `logical`.
  idle_timeout,            ///< `connection_slot_invalidated`: the slot sat idle too long (PostgreSQL 18).
  invalidated,             ///< `connection_slot_invalidated`: invalidated, the server gave no (known) class.
  batch_full,              ///< `sink_batch_committed`: the batch reached its size bound.
  batch_timer,             ///< `sink_batch_committed`: the batch's delay bound elapsed.
  batch_drain,             ///< `sink_batch_committed`: flushed early (stopping, or an event must follow it).
  stream_abort,            ///< `stream_aborted`: the server reported the transaction (or a subtransaction) aborted.
  widened,       ///< schema change events: a column's type widened (`int4` to `int8`, a longer `varchar`, ...).
  wal_lag,       ///< `connection_side_check_failed`: the WAL-lag check behind the server (`max_wal_lag`).
  publications,  ///< `connection_side_check_failed`: the publication check (`publication_check_interval`).
};

/// Every @ref kind, in declaration order.
inline constexpr std::array kinds = {
    kind::primary,      kind::standby,      kind::idle,         kind::additive,
    kind::destructive,  kind::wal_removed,  kind::rows_removed, kind::wal_level_insufficient,
    kind::idle_timeout, kind::invalidated,  kind::batch_full,   kind::batch_timer,
    kind::batch_drain,  kind::stream_abort, kind::widened,      kind::wal_lag,
    kind::publications};

/// The stable snake_case name of @p k, e.g. `"idle"`. Never throws.
[[nodiscard]] constexpr auto to_string(kind k) noexcept -> std::string_view {
  switch (k) {
    case kind::primary: return "primary";
    case kind::standby: return "standby";
    case kind::idle: return "idle";
    case kind::additive: return "additive";
    case kind::destructive: return "destructive";
    case kind::wal_removed: return "wal_removed";
    case kind::rows_removed: return "rows_removed";
    case kind::wal_level_insufficient: return "wal_level_insufficient";
    case kind::idle_timeout: return "idle_timeout";
    case kind::invalidated: return "invalidated";
    case kind::batch_full: return "batch_full";
    case kind::batch_timer: return "batch_timer";
    case kind::batch_drain: return "batch_drain";
    case kind::stream_abort: return "stream_abort";
    case kind::widened: return "widened";
    case kind::wal_lag: return "wal_lag";
    case kind::publications: return "publications";
  }
  return "unknown";
}

/**
 * The `kind` that reports the slot invalidation class @p c on
 * `replicant.connection.slot_invalidated`: the kind of the same name. Never throws.
 */
[[nodiscard]] constexpr auto to_kind(slot_invalidation c) noexcept -> kind {
  switch (c) {
    case slot_invalidation::wal_removed: return kind::wal_removed;
    case slot_invalidation::rows_removed: return kind::rows_removed;
    case slot_invalidation::wal_level_insufficient: return kind::wal_level_insufficient;
    case slot_invalidation::idle_timeout: return kind::idle_timeout;
    case slot_invalidation::invalidated: break;
  }
  return kind::invalidated;
}

/**
 * The value of one key of a delivered event: a closed variant of the allowlisted value types.
 *
 * Integers (counts, sizes, attempts, `lag_ms`, `lag_bytes`) are `std::int64_t`; `duration` is
 * `std::chrono::nanoseconds`. There is no string alternative: names arrive as
 * @ref replicant::table_ref or @ref replicant::slot_name.
 */
using field_value =
    std::variant<std::int64_t, lsn, std::chrono::nanoseconds, bool, table_ref, slot_name, halt_reason, errc, kind>;

/**
 * One key and its value in a delivered event.
 *
 * A `table_ref` value views strings owned by the emitter: like the whole @ref event_record it is
 * valid only during the handler call. Copy what you keep (`to_string` gives an owned text).
 */
struct field {
  std::string_view key;  ///< The key's name, e.g. `"commit_lsn"`.
  field_value value;     ///< Its value.
};

/**
 * An event as handlers see it: the name, the measurements and the metadata.
 *
 * A view, valid only during the handler call.
 *
 * @par Thread safety
 * Read-only; may be read from the handler's thread only while the call lasts.
 */
struct event_record {
  std::string_view name;                ///< Dotted event name, e.g. `"replicant.sink.committed"`.
  std::span<const field> measurements;  ///< Numeric observations (`duration`, `lag_bytes`).
  std::span<const field> metadata;      ///< Allowlisted descriptive keys, in emission order.

  /// The value of @p key among the measurements, then the metadata, or null. Never throws.
  [[nodiscard]] auto find(std::string_view key) const noexcept -> const field_value* {
    for (const field& f : measurements) {
      if (f.key == key) return &f.value;
    }
    for (const field& f : metadata) {
      if (f.key == key) return &f.value;
    }
    return nullptr;
  }
};

/// A user's telemetry handler. A pipeline calls it from the thread that runs it; handlers shared by
/// several pipelines (or other threads) must be thread-safe. It should be quick and must not throw.
using handler = std::function<void(const event_record&)>;

/// Identifies an attached handler, for
/// @ref replicant::telemetry::dispatcher::detach "dispatcher::detach".
enum class handler_id : std::uint64_t {};

/**
 * The handler registry a pipeline emits its events to.
 *
 * Attach any number of handlers; each receives every event. With none attached, emitting costs one
 * atomic load and a branch (the event record is never built).
 *
 * A handler that throws is detached (as Erlang's `:telemetry` does), so a faulty handler cannot
 * stop replication; the exception is swallowed.
 *
 * @par Thread safety
 * All members are safe to call concurrently. A pipeline emits all of its events from the thread that
 * runs it, so the handlers of a dispatcher one pipeline uses are called one at a time; a dispatcher
 * shared by several pipelines (or emitted to from other threads) calls them concurrently, with each
 * other and with themselves. A handler attached or detached while an event is being delivered may
 * or may not see that event; after `detach` returns, the handler receives no event emitted later,
 * but a delivery already in progress may still finish. A handler may attach or detach handlers,
 * including itself. The dispatcher must outlive everything that emits to it (a pipeline keeps a
 * pointer), and whatever a handler captures must outlive the handler's last delivery.
 *
 * @see docs/reference/telemetry_dispatcher.md (receiving events, threads, cost) and
 * docs/telemetry.md (the catalog).
 */
class dispatcher {
 public:
  /// An empty registry. Never throws.
  dispatcher() noexcept = default;
  dispatcher(const dispatcher&) = delete;
  auto operator=(const dispatcher&) -> dispatcher& = delete;
  ~dispatcher() = default;

  /**
   * Attaches @p h; it receives every event emitted from now on.
   * @return the id to detach it with.
   * @throws std::bad_alloc
   */
  auto attach(handler h) -> handler_id {
    const std::lock_guard lock(mutex_);
    auto next = owned_ ? std::make_unique<list>(*owned_) : std::make_unique<list>();
    const auto id = handler_id{++last_id_};
    next->push_back(entry{id, std::move(h)});
    publish(std::move(next));
    return id;
  }

  /**
   * Detaches the handler @p id.
   * @return whether it was attached.
   * @throws std::bad_alloc
   */
  auto detach(handler_id id) -> bool {
    const std::lock_guard lock(mutex_);
    if (!owned_) return false;
    auto next = std::make_unique<list>();
    for (const entry& e : *owned_) {
      if (e.id != id) next->push_back(e);
    }
    if (next->size() == owned_->size()) return false;
    publish(next->empty() ? nullptr : std::move(next));
    return true;
  }

  /// Whether any handler is attached: the fast path of @ref emit. Never throws.
  [[nodiscard]] auto has_handlers() const noexcept -> bool {
    return current_.load(std::memory_order_acquire) != nullptr;
  }

  /**
   * Delivers @p record to every attached handler, in attachment order.
   *
   * Handlers run on the calling thread, and no lock is taken: a delivery counts itself in and out
   * beside the handlers' calls. One that throws is detached. Never throws.
   */
  auto dispatch(const event_record& record) noexcept -> void {
    const delivery counted{deliveries_};
    const list* current = current_.load();
    if (current == nullptr) return;
    for (const entry& e : *current) {
      try {
        e.fn(record);
      } catch (...) {
        try {
          static_cast<void>(detach(e.id));
        } catch (...) {  // NOLINT(bugprone-empty-catch): out of memory; it stays attached
        }
      }
    }
  }

 private:
  struct entry {
    handler_id id;
    handler fn;
  };
  using list = std::vector<entry>;

  // Counts one delivery under way for as long as it lives.
  struct delivery {
    explicit delivery(std::atomic<std::size_t>& under_way) noexcept : count(under_way) { count.fetch_add(1); }
    delivery(const delivery&) = delete;
    auto operator=(const delivery&) -> delivery& = delete;
    ~delivery() { count.fetch_sub(1); }
    std::atomic<std::size_t>& count;
  };

  // Makes @p next the list deliveries read (under mutex_). A delivery under way may still read the
  // list it replaces, so that one is kept, and every kept list is freed once no delivery is under
  // way. Sound because each of these accesses is sequentially consistent: a delivery counts itself
  // before it loads the list, so once the count reads 0 after the store, a delivery that starts
  // later loads the new list.
  void publish(std::unique_ptr<list> next) {
    if (owned_) retired_.push_back(std::move(owned_));
    owned_ = std::move(next);
    current_.store(owned_.get());
    if (deliveries_.load() == 0) retired_.clear();
  }

  std::mutex mutex_;                            // serialises attach and detach
  std::unique_ptr<list> owned_;                 // the list deliveries read, or none
  std::vector<std::unique_ptr<list>> retired_;  // lists a delivery under way may still read
  std::atomic<const list*> current_{nullptr};   // owned_, for the deliveries
  std::atomic<std::size_t> deliveries_{0};      // deliveries under way
  std::uint64_t last_id_ = 0;
};

namespace detail {

// --- value shapes: which C++ types a key accepts, and how it stores them ---------------------
// Every shape refuses strings (checked separately so that the message can say so).

struct lsn_shape {
  template <class V>
  static constexpr bool accepts = std::is_same_v<V, lsn>;
  static auto store(lsn v) noexcept -> field_value { return field_value(std::in_place_type<lsn>, v); }
};

struct count_shape {
  template <class V>
  static constexpr bool accepts = count<V>;
  // Counts and sizes are far below 2^63; a larger unsigned value would wrap, which is acceptable
  // for an observation and cheaper than a branch on every event.
  template <class V>
  static auto store(V v) noexcept -> field_value {
    return field_value(std::in_place_type<std::int64_t>, static_cast<std::int64_t>(v));
  }
};

struct duration_shape {
  template <class V>
  static constexpr bool accepts = is_duration<V>;
  template <class V>
  static auto store(V v) noexcept -> field_value {
    return field_value(std::in_place_type<std::chrono::nanoseconds>,
                       std::chrono::duration_cast<std::chrono::nanoseconds>(v));
  }
};

// `lag_ms`: a duration on the way in (so the unit is never guessed), whole milliseconds out.
struct millis_shape {
  template <class V>
  static constexpr bool accepts = is_duration<V>;
  template <class V>
  static auto store(V v) noexcept -> field_value {
    return field_value(std::in_place_type<std::int64_t>,
                       static_cast<std::int64_t>(std::chrono::duration_cast<std::chrono::milliseconds>(v).count()));
  }
};

struct bool_shape {
  template <class V>
  static constexpr bool accepts = std::is_same_v<V, bool>;
  static auto store(bool v) noexcept -> field_value { return field_value(std::in_place_type<bool>, v); }
};

struct table_shape {
  template <class V>
  static constexpr bool accepts = std::is_same_v<V, table_ref> || std::is_same_v<V, table_name>;
  static auto store(table_ref v) noexcept -> field_value { return field_value(std::in_place_type<table_ref>, v); }
};

struct slot_shape {
  template <class V>
  static constexpr bool accepts = std::is_same_v<V, replicant::slot_name>;
  static auto store(const replicant::slot_name& v) noexcept -> field_value {
    return field_value(std::in_place_type<replicant::slot_name>, v);
  }
};

template <class... Enums>
struct enum_shape {
  template <class V>
  static constexpr bool accepts = (std::is_same_v<V, Enums> || ...);
  template <class V>
  static auto store(V v) noexcept -> field_value {
    return field_value(std::in_place_type<V>, v);
  }
};

}  // namespace detail

/**
 * Whether key @p Key (a tag such as `keys::commit_lsn_t`) accepts a value of type @p V.
 *
 * False for every key and every string type. This is the check `keys::x = value` enforces with a
 * `static_assert`; it is exposed so that tests can check it without a failed compilation.
 */
template <class Key, class V>
inline constexpr bool accepts =
    !detail::is_string_like<std::remove_cvref_t<V>> && Key::template accepts<std::remove_cvref_t<V>>;

/// A key bound to a value, made by `keys::x = value` and consumed by @ref emit.
template <class Key>
struct binding {
  field_value value;  ///< The stored value, already of the key's type.
};

/**
 * A key object: `keys::commit_lsn = at` makes a @ref binding, checking the value's type at compile
 * time.
 *
 * @tparam Key the key's tag, which names it and gives its value shape.
 */
template <class Key>
struct key {
  using tag = Key;  ///< The key's tag type, as listed in the catalog.

  /// Binds @p v to this key. A string, or any type the key does not accept, does not compile.
  template <class V>
  // NOLINTNEXTLINE(misc-unconventional-assign-operator): the `key = value` spelling is the point
  constexpr auto operator=(V&& v) const -> binding<Key> {
    using value_type = std::remove_cvref_t<V>;
    static_assert(!detail::is_string_like<value_type>,
                  "replicant: telemetry values are never strings: a row value must not reach telemetry "
                  "(names are passed as replicant::table_ref or replicant::slot_name)");
    static_assert(detail::is_string_like<value_type> || Key::template accepts<value_type>,
                  "replicant: this value type is not allowed for this telemetry key (see the key's "
                  "value type in replicant/telemetry/telemetry.hpp)");
    if constexpr (accepts<Key, V>) {
      return binding<Key>{Key::store(v)};
    } else {
      return binding<Key>{};
    }
  }
};

/**
 * The key vocabulary. Each key object is used as `keys::name = value`; its tag type `name_t`
 * appears in the catalog.
 */
namespace keys {

// clang-format off
/// `commit_lsn`: a position in the WAL (@ref replicant::lsn).
struct commit_lsn_t : detail::lsn_shape { static constexpr std::string_view name = "commit_lsn"; };
/// `change_count`: a number of changes or rows (any integer type).
struct change_count_t : detail::count_shape { static constexpr std::string_view name = "change_count"; };
/// `byte_size`: a size in bytes (any integer type).
struct byte_size_t : detail::count_shape { static constexpr std::string_view name = "byte_size"; };
/// `lag_ms`: a lag in time (a `std::chrono` duration; delivered as whole milliseconds).
struct lag_ms_t : detail::millis_shape { static constexpr std::string_view name = "lag_ms"; };
/// `duration`: how long something took (a `std::chrono` duration; delivered as nanoseconds).
struct duration_t : detail::duration_shape { static constexpr std::string_view name = "duration"; };
/// `attempt`: the number of the current attempt (any integer type).
struct attempt_t : detail::count_shape { static constexpr std::string_view name = "attempt"; };
/// `max_retries`: a retry budget (any integer type).
struct max_retries_t : detail::count_shape { static constexpr std::string_view name = "max_retries"; };
/// `transactional`: whether a logical message was transactional (`bool` only).
struct transactional_t : detail::bool_shape { static constexpr std::string_view name = "transactional"; };
/// `table`: a schema-qualified table name (@ref replicant::table_ref or @ref replicant::table_name). The
/// binding views the name, so bind it inside the `emit` call, as with every key.
struct table_t : detail::table_shape { static constexpr std::string_view name = "table"; };
/// `slot_name`: the replication slot (@ref replicant::slot_name, validated).
struct slot_name_t : detail::slot_shape { static constexpr std::string_view name = "slot_name"; };
/// `reason`: why: a @ref replicant::halt_reason for a halt or a failure, a @ref telemetry::kind
/// for a cause that is not one (what closed a batch, a stream's abort, the class of an invalidated
/// slot).
struct reason_t : detail::enum_shape<halt_reason, telemetry::kind> {
  static constexpr std::string_view name = "reason";
};
/// `error_class`: what kind of error occurred (@ref replicant::errc).
struct error_class_t : detail::enum_shape<errc> { static constexpr std::string_view name = "error_class"; };
/// `kind`: a variant of the event (@ref telemetry::kind).
struct kind_t : detail::enum_shape<telemetry::kind> { static constexpr std::string_view name = "kind"; };
/// `lag_bytes` (measurement): how far received WAL is ahead of the durable checkpoint, in bytes, signed.
struct lag_bytes_t : detail::count_shape { static constexpr std::string_view name = "lag_bytes"; };
/// `lag` (measurement): the same lag under the reference's name, emitted beside `lag_bytes` always.
struct lag_t : detail::count_shape { static constexpr std::string_view name = "lag"; };
// clang-format on

// The tags' `name` members, documented here so that each tag above stays on one line.
/**
 * @var commit_lsn_t::name
 * The key's name (`field::key` in a delivered event).
 * @var change_count_t::name
 * The key's name (`field::key` in a delivered event).
 * @var byte_size_t::name
 * The key's name (`field::key` in a delivered event).
 * @var lag_ms_t::name
 * The key's name (`field::key` in a delivered event).
 * @var duration_t::name
 * The key's name (`field::key` in a delivered event).
 * @var attempt_t::name
 * The key's name (`field::key` in a delivered event).
 * @var max_retries_t::name
 * The key's name (`field::key` in a delivered event).
 * @var transactional_t::name
 * The key's name (`field::key` in a delivered event).
 * @var table_t::name
 * The key's name (`field::key` in a delivered event).
 * @var slot_name_t::name
 * The key's name (`field::key` in a delivered event).
 * @var reason_t::name
 * The key's name (`field::key` in a delivered event).
 * @var error_class_t::name
 * The key's name (`field::key` in a delivered event).
 * @var kind_t::name
 * The key's name (`field::key` in a delivered event).
 * @var lag_bytes_t::name
 * The key's name (`field::key` in a delivered event).
 * @var lag_t::name
 * The key's name (`field::key` in a delivered event).
 */

inline constexpr key<commit_lsn_t> commit_lsn{};        ///< Binds `commit_lsn`.
inline constexpr key<change_count_t> change_count{};    ///< Binds `change_count`.
inline constexpr key<byte_size_t> byte_size{};          ///< Binds `byte_size`.
inline constexpr key<lag_ms_t> lag_ms{};                ///< Binds `lag_ms`.
inline constexpr key<duration_t> duration{};            ///< Binds `duration`.
inline constexpr key<attempt_t> attempt{};              ///< Binds `attempt`.
inline constexpr key<max_retries_t> max_retries{};      ///< Binds `max_retries`.
inline constexpr key<transactional_t> transactional{};  ///< Binds `transactional`.
inline constexpr key<table_t> table{};                  ///< Binds `table`.
inline constexpr key<slot_name_t> slot_name{};          ///< Binds `slot_name`.
inline constexpr key<reason_t> reason{};                ///< Binds `reason`.
inline constexpr key<error_class_t> error_class{};      ///< Binds `error_class`.
inline constexpr key<kind_t> kind{};                    ///< Binds `kind`.
inline constexpr key<lag_bytes_t> lag_bytes{};          ///< Binds `lag_bytes`.
inline constexpr key<lag_t> lag{};                      ///< Binds `lag`.

}  // namespace keys

namespace hana = boost::hana;

/// The metadata allowlist: the only keys any event may carry as metadata (exactly thirteen).
inline constexpr auto metadata_keys =
    hana::tuple_t<keys::commit_lsn_t, keys::change_count_t, keys::byte_size_t, keys::lag_ms_t, keys::duration_t,
                  keys::attempt_t, keys::max_retries_t, keys::transactional_t, keys::table_t, keys::slot_name_t,
                  keys::reason_t, keys::error_class_t, keys::kind_t>;

/// The keys an event may carry as measurements.
inline constexpr auto measurement_keys = hana::tuple_t<keys::duration_t, keys::lag_bytes_t, keys::lag_t>;

/**
 * An event's dotted name as a template argument of @ref event_spec, made from a string literal
 * (`"replicant.sink.committed"`).
 *
 * @tparam N the literal's size, its terminating NUL included.
 */
template <std::size_t N>
struct event_name {
  /// Copies the literal @p literal. Implicit, so that the literal itself is the template argument.
  // NOLINTNEXTLINE(google-explicit-constructor, hicpp-explicit-conversions, *-avoid-c-arrays)
  consteval event_name(const char (&literal)[N]) noexcept {
    for (std::size_t i = 0; i < N; ++i) text[i] = literal[i];
  }
  char text[N]{};  ///< The name and its NUL. NOLINT(*-avoid-c-arrays): a structural type's storage
};

/// The keys an event may carry as measurements, for `event_spec`: a Hana tuple of key tags.
template <class... Keys>
using measures = std::remove_const_t<decltype(hana::tuple_t<Keys...>)>;

/// The keys an event may carry as metadata, for `event_spec`: a Hana tuple of key tags.
template <class... Keys>
using carries = std::remove_const_t<decltype(hana::tuple_t<Keys...>)>;

/**
 * An event's declaration: its name and the keys it may carry. Each event of the catalog is a type
 * derived from one, and so may a user's event be (see `user_event`).
 *
 * @tparam Name the dotted name, a string literal.
 * @tparam Measurements the keys it may carry as measurements: `measures<...>`.
 * @tparam Metadata the keys it may carry as metadata: `carries<...>`.
 *
 * @par Example
 * @code
 * struct sink_committed : event_spec<"replicant.sink.committed", measures<keys::duration_t>,
 *                                    carries<keys::commit_lsn_t>> {};
 * @endcode
 */
template <event_name Name, class Measurements, class Metadata>
struct event_spec {
  /// The event's name, as `event_record::name` gives it.
  static constexpr std::string_view name{Name.text, sizeof(Name.text) - 1};
  /// The keys it may carry as measurements, as a Hana tuple of key tags.
  static constexpr Measurements measurements{};
  /// The keys it may carry as metadata, as a Hana tuple of key tags.
  static constexpr Metadata metadata{};
};

/**
 * The thirty-four events (the reference's thirty, the heartbeat, the lag warning, the command error
 * of each connect cycle and the failed side check). Each type is an `event_spec`: its name, and
 * the keys it may carry. Every key is optional: an emitter passes those that apply (for instance
 * `reason` on `connection_disconnected` only for a halt).
 */
namespace events {

// clang-format off
// --- connection ----------------------------------------------------------------------------------
/// The replication connection was established (every connect and reconnect). `kind`: primary/standby.
struct connection_connected : event_spec<"replicant.connection.connected", measures<>, carries<keys::kind_t>> {};
/// The connection was dropped, or an attempt to connect failed (`attempt`: failed attempts in a row,
/// `error_class`). Every halt is reported here too (`reason`; for `sink_too_slow` with the lag, as
/// `lag_bytes` and `lag`).
struct connection_disconnected : event_spec<"replicant.connection.disconnected",
    measures<keys::lag_bytes_t, keys::lag_t>, carries<keys::reason_t, keys::attempt_t, keys::error_class_t>> {};
/// The slot is owned and streaming begins.
struct connection_slot_active : event_spec<"replicant.connection.slot_active",
    measures<>, carries<keys::slot_name_t, keys::commit_lsn_t>> {};
/// The slot was found invalidated, or the connect chain refused the configuration (`reason`: the
/// halt reason, publication_missing, failover_unsupported, decoder_option_unsupported, ...). For an
/// invalidated slot (the halt slot_invalidated), `reason` and `kind` both carry the invalidation
/// class (@ref to_kind of `halt::invalidation`: wal_removed, rows_removed, wal_level_insufficient,
/// idle_timeout or invalidated): `reason` as the reference has it, `kind` as earlier versions did;
/// the other reasons have no `kind`.
struct connection_slot_invalidated : event_spec<"replicant.connection.slot_invalidated",
    measures<>, carries<keys::slot_name_t, keys::reason_t, keys::kind_t>> {};
/// The sink's `handle_session_identity` refused the server.
struct connection_session_identity_rejected : event_spec<"replicant.connection.session_identity_rejected",
    measures<>, carries<keys::reason_t>> {};
/// A connect cycle ended in a replication command's error before anything streamed (no free slot,
/// the slot in use, an unexpected result): one event per cycle, `attempt` of `max_retries`
/// (`max_command_retries`), so that an alert can fire before the budget is spent.
struct connection_command_error : event_spec<"replicant.connection.command_error",
    measures<>, carries<keys::attempt_t, keys::max_retries_t, keys::slot_name_t, keys::error_class_t>> {};
/// The pre-stream command-error budget (`max_command_retries`) ran out; the pipeline halts.
struct connection_command_error_halt : event_spec<"replicant.connection.command_error_halt",
    measures<>, carries<keys::attempt_t, keys::max_retries_t, keys::slot_name_t, keys::error_class_t>> {};
/// A check made beside the stream on the pipeline's ordinary connection could not be made: that
/// connection could not be opened, or its query failed (`kind`: wal_lag or publications, which
/// check; `error_class`: why). `attempt` counts the check's failures in a row, and at `max_retries`
/// (`max_side_check_failures`; 0, never) the pipeline halts `side_check_failed`. A check that
/// succeeds starts the count again. One event per failed check, so that a blind check is seen
/// before the halt, and without a halt when the bound is 0.
struct connection_side_check_failed : event_spec<"replicant.connection.side_check_failed",
    measures<>, carries<keys::kind_t, keys::error_class_t, keys::attempt_t, keys::max_retries_t>> {};
/// The heartbeat statement ran (`heartbeat_interval`); `commit_lsn` is the LSN it returned, if any.
/// A heartbeat that failed (a read-only standby, a statement the role may not run) says so with
/// `error_class`, so that a heartbeat that never works does not go unnoticed.
struct connection_heartbeat : event_spec<"replicant.connection.heartbeat",
    measures<>, carries<keys::commit_lsn_t, keys::error_class_t>> {};
// --- checkpoint ----------------------------------------------------------------------------------
/// The acknowledged position advanced (after a delivery, or `kind` idle over filtered WAL).
struct checkpoint_advanced : event_spec<"replicant.checkpoint.advanced",
    measures<>, carries<keys::commit_lsn_t, keys::kind_t>> {};
/// Library-owned checkpoint: read at connect (no `commit_lsn` for a fresh slot).
struct checkpoint_store_read : event_spec<"replicant.checkpoint_store.read",
    measures<>, carries<keys::slot_name_t, keys::commit_lsn_t>> {};
/// Library-owned checkpoint: durably written.
struct checkpoint_store_written : event_spec<"replicant.checkpoint_store.written",
    measures<>, carries<keys::slot_name_t, keys::commit_lsn_t>> {};
/// Library-owned checkpoint: a batch of checkpoint writes was flushed (`byte_size` is the LSN span).
struct checkpoint_store_batch_flushed : event_spec<"replicant.checkpoint_store.batch_flushed",
    measures<>, carries<keys::slot_name_t, keys::commit_lsn_t, keys::change_count_t, keys::byte_size_t>> {};
/// A transient checkpoint-store fault is being retried.
struct checkpoint_store_retrying : event_spec<"replicant.checkpoint_store.retrying",
    measures<>, carries<keys::slot_name_t, keys::attempt_t, keys::max_retries_t, keys::error_class_t>> {};
/// The checkpoint store failed for good (budget spent, or a permanent fault); the pipeline halts.
struct checkpoint_store_failed : event_spec<"replicant.checkpoint_store.failed",
    measures<keys::duration_t>, carries<keys::slot_name_t, keys::reason_t, keys::error_class_t>> {};
// --- delivery ------------------------------------------------------------------------------------
/// A committed transaction was assembled and is about to be delivered.
struct transaction_assembled : event_spec<"replicant.transaction.assembled",
    measures<>, carries<keys::commit_lsn_t, keys::change_count_t, keys::byte_size_t>> {};
/// The sink persisted a transaction.
struct sink_committed : event_spec<"replicant.sink.committed",
    measures<keys::duration_t>, carries<keys::commit_lsn_t>> {};
/// The sink persisted a batch atomically (`reason`: what closed the batch, batch_full, batch_timer
/// or batch_drain).
struct sink_batch_committed : event_spec<"replicant.sink.batch_committed",
    measures<keys::duration_t>, carries<keys::commit_lsn_t, keys::change_count_t, keys::reason_t>> {};
/// The WAL lag (the server's WAL position past the durable position `commit_lsn`, while the sink
/// holds the stream back) reached half of `pipeline_options::max_wal_lag`: once per crossing. The
/// lag is both `lag_bytes` and `lag`.
struct sink_lagging : event_spec<"replicant.sink.lagging",
    measures<keys::lag_bytes_t, keys::lag_t>, carries<keys::commit_lsn_t>> {};
/// The sink failed (error result or exception; `reason` sink_failed), or the storage a spilled
/// transaction is written to or read back from did (`reason` spill_io_failed, as the reference
/// reports it); the pipeline halts.
struct sink_failed : event_spec<"replicant.sink.failed",
    measures<keys::duration_t>, carries<keys::commit_lsn_t, keys::reason_t, keys::error_class_t>> {};
/// A logical-decoding message arrived (messages enabled). Its prefix and content are never reported.
struct message_received : event_spec<"replicant.message.received",
    measures<>, carries<keys::commit_lsn_t, keys::byte_size_t, keys::transactional_t>> {};
// --- schema --------------------------------------------------------------------------------------
/// An additive schema change was applied automatically (`kind` additive).
struct schema_change_additive : event_spec<"replicant.schema_change.additive",
    measures<>, carries<keys::table_t, keys::kind_t>> {};
/// A destructive schema change halted the pipeline, or the sink refused one (`reason`).
struct schema_change_halted : event_spec<"replicant.schema_change.halted",
    measures<>, carries<keys::table_t, keys::kind_t, keys::reason_t>> {};
// --- snapshot ------------------------------------------------------------------------------------
/// A point-in-time or an incremental snapshot started at `commit_lsn`.
struct snapshot_started : event_spec<"replicant.snapshot.started", measures<>, carries<keys::commit_lsn_t>> {};
/// An incremental snapshot resumed from its durable progress (`change_count`: rows it read
/// before).
struct snapshot_resumed : event_spec<"replicant.snapshot.resumed",
    measures<>, carries<keys::slot_name_t, keys::change_count_t>> {};
/// One table finished snapshotting.
struct snapshot_table_completed : event_spec<"replicant.snapshot.table_completed",
    measures<>, carries<keys::table_t, keys::change_count_t>> {};
/// One incremental chunk was applied.
struct snapshot_chunk_completed : event_spec<"replicant.snapshot.chunk_completed",
    measures<>, carries<keys::table_t, keys::change_count_t>> {};
/// A chunk was discarded for contention and will be retried.
struct snapshot_chunk_retried : event_spec<"replicant.snapshot.chunk_retried",
    measures<>, carries<keys::table_t, keys::reason_t, keys::attempt_t>> {};
/// The snapshot finished and handed over to streaming at `commit_lsn`.
struct snapshot_completed : event_spec<"replicant.snapshot.completed",
    measures<keys::duration_t>, carries<keys::commit_lsn_t, keys::change_count_t>> {};
/// The snapshot halted.
struct snapshot_failed : event_spec<"replicant.snapshot.failed",
    measures<>, carries<keys::reason_t, keys::table_t, keys::error_class_t>> {};
// --- streamed transactions -----------------------------------------------------------------------
/// A streamed (in-progress) transaction committed.
struct stream_committed : event_spec<"replicant.stream.committed",
    measures<>, carries<keys::commit_lsn_t, keys::byte_size_t, keys::change_count_t>> {};
/// A streamed transaction, or one of its subtransactions, aborted (`reason` stream_abort); what was
/// held for it is dropped (`change_count` changes, `byte_size` bytes of row data).
struct stream_aborted : event_spec<"replicant.stream.aborted",
    measures<>, carries<keys::reason_t, keys::byte_size_t, keys::change_count_t>> {};
/// Part of an oversized streamed transaction was spilled to disk.
struct stream_spilled : event_spec<"replicant.stream.spilled",
    measures<>, carries<keys::byte_size_t, keys::change_count_t>> {};
/// The spill ceiling was reached; the pipeline halts (`reason` spill_exhausted).
struct stream_spill_exhausted : event_spec<"replicant.stream.spill_exhausted",
    measures<>, carries<keys::byte_size_t, keys::reason_t>> {};
// clang-format on

}  // namespace events

/// The catalog: every event replicant emits, as a Hana tuple of `hana::type`s (thirty-four).
inline constexpr auto catalog =
    hana::tuple_t<events::connection_connected, events::connection_disconnected, events::connection_slot_active,
                  events::connection_slot_invalidated, events::connection_session_identity_rejected,
                  events::connection_command_error_halt, events::checkpoint_advanced, events::checkpoint_store_read,
                  events::checkpoint_store_written, events::checkpoint_store_batch_flushed,
                  events::checkpoint_store_retrying, events::checkpoint_store_failed, events::transaction_assembled,
                  events::sink_committed, events::sink_batch_committed, events::sink_failed, events::message_received,
                  events::schema_change_additive, events::schema_change_halted, events::snapshot_started,
                  events::snapshot_resumed, events::snapshot_table_completed, events::snapshot_chunk_completed,
                  events::snapshot_chunk_retried, events::snapshot_completed, events::snapshot_failed,
                  events::stream_committed, events::stream_aborted, events::stream_spilled,
                  events::stream_spill_exhausted, events::connection_heartbeat, events::sink_lagging,
                  events::connection_command_error, events::connection_side_check_failed>;

/// The names of all catalogued events, in catalog order.
inline constexpr auto event_names = hana::unpack(
    catalog, [](auto... e) { return std::array<std::string_view, sizeof...(e)>{decltype(e)::type::name...}; });

/**
 * A telemetry event of the user's own (a checkpoint policy's, a sink's), declared as the library's
 * are, with `static constexpr bool user_event = true;` besides: an `event_spec`, or its `name`
 * and the keys it may carry as Hana tuples of key tags (`measurements`, `metadata`) spelled out. It
 * is emitted with `telemetry::emit` or `checkpoint_context::emit`, checked as the catalog's events
 * are: only its keys, each once, and never a string.
 *
 * @par Example
 * @code
 * namespace t = replicant::telemetry;
 * struct store_skipped : t::event_spec<"custom_policies.store_skipped", t::measures<t::keys::byte_size_t>,
 *                                      t::carries<t::keys::slot_name_t>> {
 *   static constexpr bool user_event = true;
 * };
 * @endcode
 */
template <class Event>
concept user_event = requires {
  requires Event::user_event;
  { Event::name } -> std::convertible_to<std::string_view>;
  Event::measurements;
  Event::metadata;
};

namespace detail {

// Whether @p T is one of the types of @p types (a tuple of `hana::type`s): one fold per query,
// which the compiler evaluates far faster than `hana::contains` (a generic search through Hana's
// comparison dispatch), checked at every emit of every translation unit.
template <class T>
constexpr auto listed_in(const auto& types) -> bool {
  return hana::unpack(types, [](auto... t) { return (std::is_same_v<T, typename decltype(t)::type> || ...); });
}

template <class Event>
inline constexpr bool is_event = listed_in<Event>(catalog) || user_event<Event>;

// A user's event is named outside the library's prefix, so that an alert on `replicant.` events
// never matches one a policy made up.
template <class Event>
constexpr auto named_outside_the_library() -> bool {
  if constexpr (user_event<Event>) {
    return !std::string_view{Event::name}.starts_with("replicant.");
  } else {
    return true;
  }
}

template <class Event, class Key>
inline constexpr bool is_measurement = listed_in<Key>(Event::measurements);

template <class Event, class Key>
inline constexpr bool is_metadata = listed_in<Key>(Event::metadata);

template <class Event, class Key>
constexpr auto check_key() -> void {
  static_assert(is_measurement<Event, Key> || is_metadata<Event, Key>,
                "replicant: key not allowed for this telemetry event (it is in neither the measurements nor the "
                "metadata of the event's entry in replicant::telemetry::events)");
}

}  // namespace detail

/**
 * Emits event @p Event with the given key bindings to every handler attached to @p to.
 *
 * Checked at compile time: @p Event must be in the catalog, each key must be listed for it, and no
 * key may be given twice; the value types were checked when the bindings were made. Keys listed as
 * measurements go to `event_record::measurements`, the others to `event_record::metadata`, each in
 * the order given.
 *
 * When no handler is attached this is one atomic load and a branch: the record is not built.
 *
 * @tparam Event a type of @ref events.
 * @par Example
 * @code
 * emit<events::checkpoint_advanced>(d, keys::commit_lsn = at, keys::kind = kind::idle);
 * @endcode
 * @par Exceptions
 * Never throws (a throwing handler is detached, see @ref dispatcher).
 * @par Thread safety
 * Safe to call from several threads on one dispatcher.
 */
template <class Event, class... Keys>
auto emit(dispatcher& to, const binding<Keys>&... fields) noexcept -> void {
  static_assert(detail::is_event<Event>,
                "replicant: not a telemetry event of the catalog (use a type of replicant::telemetry::events, or "
                "declare your own: see replicant::telemetry::user_event)");
  static_assert(detail::named_outside_the_library<Event>(),
                "replicant: a user's telemetry event must not begin with `replicant.` (that prefix is the library's "
                "events'; name it after your component)");
  (detail::check_key<Event, Keys>(), ...);
  static_assert(replicant::telemetry::detail::distinct<Keys...>, "replicant: a telemetry key was given twice");
  if (!to.has_handlers()) return;

  constexpr std::size_t n_measurements = (std::size_t{detail::is_measurement<Event, Keys>} + ... + 0);
  std::array<field, n_measurements> measured{};
  std::array<field, sizeof...(Keys) - n_measurements> described{};
  std::size_t im = 0;
  std::size_t id = 0;
  [[maybe_unused]] const auto put = [&]<class Key>(const binding<Key>& b) {
    if constexpr (detail::is_measurement<Event, Key>) {
      measured[im++] = field{Key::name, b.value};
    } else {
      described[id++] = field{Key::name, b.value};
    }
  };
  (put(fields), ...);
  to.dispatch(event_record{Event::name, measured, described});
}

/**
 * The display form of a value: an LSN as `16/B374D848`, a duration as `1500ns`, a table as
 * `public.orders` (escaped, see @ref replicant::to_string(table_ref)), enums by their snake_case
 * names. For log handlers.
 * @par Exceptions
 * Throws `std::bad_alloc` only.
 */
[[nodiscard]] inline auto to_string(const field_value& v) -> std::string {
  struct visitor {
    auto operator()(std::int64_t x) const -> std::string { return std::to_string(x); }
    auto operator()(lsn x) const -> std::string { return replicant::to_string(x); }
    auto operator()(std::chrono::nanoseconds x) const -> std::string { return std::to_string(x.count()) + "ns"; }
    auto operator()(bool x) const -> std::string { return x ? "true" : "false"; }
    auto operator()(table_ref x) const -> std::string { return replicant::to_string(x); }
    auto operator()(const replicant::slot_name& x) const -> std::string { return x.str(); }
    auto operator()(halt_reason x) const -> std::string { return std::string(replicant::to_string(x)); }
    auto operator()(errc x) const -> std::string { return std::string(replicant::to_string(x)); }
    auto operator()(kind x) const -> std::string { return std::string(telemetry::to_string(x)); }
  };
  return std::visit(visitor{}, v);
}

/**
 * One log line for @p e: the name, then `key=value` for each measurement and metadata key, e.g.
 * `replicant.sink.committed duration=1500ns commit_lsn=0/16B3748`.
 * @par Exceptions
 * Throws `std::bad_alloc` only.
 */
[[nodiscard]] inline auto to_string(const event_record& e) -> std::string {
  std::string out(e.name);
  for (const auto fields : {e.measurements, e.metadata}) {
    for (const field& f : fields) {
      out.push_back(' ');
      out.append(f.key);
      out.push_back('=');
      out.append(to_string(f.value));
    }
  }
  return out;
}

}  // namespace replicant::telemetry

#endif  // REPLICANT_TELEMETRY_TELEMETRY_HPP
