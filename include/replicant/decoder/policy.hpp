// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_POLICY_HPP
#define REPLICANT_DECODER_POLICY_HPP

/// @file
/// The decoder policy of the replication pipeline: what `pipeline<Decoder, ...>` needs of its
/// `Decoder`. A decoder names its output plugin, declares at compile time what the plugin can
/// express (@ref replicant::decoder_capabilities), says what to ask for at `START_REPLICATION`,
/// and turns each XLogData payload into pgoutput messages, which the assembler consumes. pgoutput
/// is the identity; `wal2json_decoder` and `pglogical_decoder` translate.
///
/// The concept `replicant::decoder_policy` is a conjunction of one atomic concept per member, and
/// `detail::check_decoder<Decoder>()` is the pipeline's checklist: one `static_assert` per member.

#include <replicant/core/halt.hpp>
#include <replicant/core/result.hpp>
#include <replicant/decoder/detail/pgoutput_writer.hpp>
#include <replicant/decoder/pgoutput_protocol.hpp>

#include <chrono>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace replicant {

/**
 * What an output plugin can express, declared by each decoder as
 * `static constexpr decoder_capabilities capabilities`. A decoder's options hold only what its
 * plugin can do (setting pgoutput's `streaming` on a `wal2json_options` does not compile: there is
 * no such member), and a sink whose hooks only a missing capability would call does not compile
 * either. What the pipeline's own options ask of the plugin (a failover slot, a snapshot start mode)
 * is refused before connecting (`decoder_capability_unsupported`, `snapshot_unsupported`), as is a
 * decoder whose `settings()` claim more than its capabilities. So nothing is ever asked of a plugin
 * that would silently not do it.
 *
 * | capability | pgoutput | wal2json | pglogical |
 * |---|---|---|---|
 * | `publications` (the table set is `pgoutput_options::publications`) | yes | no: `wal2json_options::tables` | no: `pglogical_options::replication_sets` |
 * | `streaming`, `two_phase`, `origin_filter`, `binary`, `protocol_version` | yes | no | no |
 * | `failover` | yes | no | no |
 * | `messages` | yes | yes | no |
 * | `snapshot` (point-in-time snapshot through publication filters) | yes | no | no |
 * | `catalog` (tables described from the server's catalog, read at connect) | no | yes | yes |
 *
 * @par Example
 * @code
 * static_assert(!replicant::pglogical_decoder::capabilities.messages);
 * @endcode
 */
struct decoder_capabilities {
  /// The table set is the publications of `plugin_settings::publications`, checked to exist at
  /// connect and every `publication_check_interval`. A decoder without it names its tables in its
  /// own options.
  bool publications = false;
  /// In-progress transactions can be streamed (`plugin_settings::streaming`).
  bool streaming = false;
  /// Two-phase transactions can be decoded (`plugin_settings::two_phase`, `Sink::handle_prepare`).
  bool two_phase = false;
  /// Logical decoding messages can be delivered (`plugin_settings::messages`,
  /// `Sink::handle_message`).
  bool messages = false;
  /// Transactions can be filtered by origin (`plugin_settings::origin`).
  bool origin_filter = false;
  /// The slot may be created as a failover slot (`pipeline_options::failover`).
  bool failover = false;
  /// Column values can come in binary form (`plugin_settings::binary`).
  bool binary = false;
  /// The plugin's protocol version can be chosen (`plugin_settings::protocol_version`).
  bool protocol_version = false;
  /// The snapshot start modes (`pipeline_options::start`, `Sink::handle_snapshot`) are available:
  /// they read the published tables through their publication's filters.
  bool snapshot = false;
  /// The decoder describes its tables from the server's catalog: the pipeline calls its
  /// `prepare()` at every connect, before `START_REPLICATION`.
  bool catalog = false;
};

/// Which transactions to receive by where they came from (pgoutput `origin`, PostgreSQL 16+).
enum class origin_filter {
  /// All of them (the server's default).
  any,
  /// Only those made on the server itself, not those it received through replication: what a
  /// consumer of a bidirectional setup needs so as not to send changes back where they came from.
  none,
};

/**
 * What a decoder asks its output plugin for, in plugin-independent terms: the pipeline's view of
 * the decoder's own options (`d.settings()`), by which it checks publications, sizes its
 * assembler, creates a two-phase slot, delivers messages and refuses combinations before
 * connecting. A decoder without a setting leaves it at its default.
 *
 * @par Thread safety
 * A view: `publications` is valid while the decoder it was taken from is, and not modified.
 */
struct plugin_settings {
  /// The publications to stream (pgoutput; a translating decoder names its tables in its own options).
  std::span<const std::string> publications{};
  /// The pgoutput protocol version to ask for; 0 lets the decoder choose the newest the server has.
  std::uint32_t protocol_version = 0;
  /// Column values in binary form.
  bool binary = false;
  /// Stream in-progress transactions.
  bool streaming = false;
  /// Decode two-phase transactions.
  bool two_phase = false;
  /// Deliver logical decoding messages.
  bool messages = false;
  /// Filter transactions by origin.
  std::optional<origin_filter> origin{};
};

/// What a decoder is told at every connect.
struct decoder_context {
  /// `server_version_num` of the server connected to.
  std::uint32_t server_version = 0;
};

/**
 * What a decoder asks for at `START_REPLICATION`, and what the pgoutput messages it will hand the
 * assembler look like.
 */
struct start_request {
  /// The option list: the `(...)` of `START_REPLICATION SLOT s LOGICAL x/x (...)`.
  std::string options{};
  /// The same list without the options that some builds of the plugin do not know, when any was
  /// asked for. If `START_REPLICATION` with `options` fails but with these it starts, the plugin
  /// refused one of them, and the pipeline halts `decoder_option_unsupported` instead of retrying.
  std::optional<std::string> fallback_options{};
  /// The pgoutput the assembler receives: what was negotiated for pgoutput itself; for a
  /// translating decoder, plain pgoutput without streaming (the default).
  pgoutput_protocol protocol{};
};

/// One row of a query a decoder runs: each field as text, SQL NULL as an empty string.
using query_row = std::span<const std::string_view>;

/**
 * Runs one SQL statement for a decoder, handing each row of its result to the visitor in order.
 * It returns a value-free error when the statement fails; the server's message is never kept.
 * The pipeline provides it on its replication connection at connect, and on an ordinary connection
 * for periodic checks. The rows a decoder asks for are catalog data (names, OIDs, flags), never
 * row values.
 */
using query_function = std::function<result<void>(const std::string& sql, const std::function<void(query_row)>& visit)>;

namespace detail {

// The only callable the concept checks translate() with: a pgoutput_emitter that does nothing.
struct emitter_archetype {
  auto operator()(std::span<const std::byte>) const -> result<void> { return {}; }
};

/// Atom: `D::plugin_name` names the output plugin (`CREATE_REPLICATION_SLOT ... LOGICAL <name>`).
template <class D>
concept has_plugin_name = requires {
  { D::plugin_name } -> std::convertible_to<std::string_view>;
};

/// Atom: `D::capabilities` is a constant `decoder_capabilities`.
template <class D>
concept has_capabilities = requires {
  { D::capabilities } -> std::same_as<const decoder_capabilities&>;
};

/// Atom: `d.validate()` checks the decoder's own options before anything connects, returning
/// `halt_or<void>` (the halt of a start-time rejection as its error).
template <class D>
concept has_validate = requires(const D& d) {
  { d.validate() } -> std::same_as<halt_or<void>>;
};

/// Atom: `d.settings()` says what the decoder's options ask of the plugin, as `plugin_settings`.
template <class D>
concept has_settings = requires(const D& d) {
  { d.settings() } -> std::same_as<plugin_settings>;
};

/// Atom: `d.negotiate(context)` returns `result<start_request>`: what to ask for at START.
template <class D>
concept has_negotiate = requires(const D& d, const decoder_context& ctx) {
  { d.negotiate(ctx) } -> std::same_as<result<start_request>>;
};

/// Atom: `d.begin_session(context)` forgets everything of the previous session.
template <class D>
concept has_begin_session = requires(D& d, const decoder_context& ctx) {
  { d.begin_session(ctx) } -> std::same_as<void>;
};

/// Atom: `d.translate(payload, emit)` turns one XLogData payload into pgoutput messages.
template <class D>
concept has_translate = requires(D& d, std::span<const std::byte> payload, emitter_archetype& emit) {
  { d.translate(payload, emit) } -> std::same_as<result<void>>;
};

/// Atom (with the `catalog` capability): `d.prepare(query)` reads what the decoder needs from the
/// server at connect and checks its table set, returning a halt when it must not start.
template <class D>
concept has_prepare = requires(D& d, const query_function& query) {
  { d.prepare(query) } -> std::same_as<result<std::optional<halt>>>;
};

/// Atom (optional): `d.recheck_interval()`, `d.recheck_due()` and `d.recheck(query, emit)`: a check
/// while streaming, periodic (wal2json: the catalog, for columns dropped where no change shows it)
/// or before the next payload when the decoder asks (pglogical: the types of a table described
/// again).
template <class D>
concept has_recheck = requires(D& d, const query_function& query, emitter_archetype& emit) {
  { d.recheck_interval() } -> std::same_as<std::chrono::milliseconds>;
  { std::as_const(d).recheck_due() } -> std::same_as<bool>;
  { d.recheck(query, emit) } -> std::same_as<result<std::optional<halt>>>;
};

// Whether a type is the options struct of a decoder (pgoutput_options, wal2json_options,
// pglogical_options): their headers opt in, so that the pipeline can name them in its messages
// without including them.
template <class T>
inline constexpr bool is_decoder_options = false;

// A decoder made from options of its own (`D::options_type`): a default-constructed one asks its
// plugin for nothing (no publications, no tables), so a pipeline must be given them.
template <class D>
concept configured_by_options = requires { typename D::options_type; };

// A decoder a pipeline's constructor may leave out: made by default, it still asks its plugin for
// something.
template <class D>
concept may_leave_out_decoder = std::default_initializable<D> && !configured_by_options<D>;

// What a pipeline's constructor takes in the decoder's place: the decoder, or the options of its own
// it is made from.
template <class T, class D>
concept decoder_setting = std::same_as<T, D> || (is_decoder_options<T> && std::constructible_from<D, T>);

}  // namespace detail

/**
 * A type the replication pipeline can take as its `Decoder`.
 *
 * | Expression | Type | Semantics |
 * |---|---|---|
 * | `D::plugin_name` | convertible to `std::string_view` | The output plugin, as `CREATE_REPLICATION_SLOT ... LOGICAL` names it. |
 * | `D::capabilities` | `const decoder_capabilities` | What the plugin can express; constant, so that combinations it cannot serve are refused at compile time or before connecting. |
 * | `d.validate()` | `halt_or<void>` | Checks the decoder's own options, before any connection; the error is the halt of a start-time rejection (`replicant::refuse(halt_reason::config_invalid)`). |
 * | `d.settings()` | `plugin_settings` | What its options ask of the plugin (publications, streaming, two-phase, messages, ...), for the pipeline; within its capabilities. |
 * | `d.negotiate(ctx)` | `result<start_request>` | What to ask for at `START_REPLICATION` on the server `ctx` describes. |
 * | `d.begin_session(ctx)` | `void` | A new session begins: forget the stream state of the previous one. |
 * | `d.translate(payload, emit)` | `result<void>` | Turns one XLogData payload into zero or more pgoutput messages, each handed to `emit` in order. |
 * | `d.prepare(query)` | `result<std::optional<halt>>` | Only with the `catalog` capability: at connect, read the catalog and check the table set; a halt when the pipeline must not start, an error when a query failed (the pipeline reconnects). |
 *
 * where `d` is an lvalue of `D` (`const` for the queries), `ctx` a
 * `const decoder_context&`, `payload` a `std::span<const std::byte>`, `emit` a
 * `replicant::pgoutput_emitter` and `query` a `const query_function&`. Optionally,
 * `d.recheck_interval()` (`std::chrono::milliseconds`), `d.recheck_due()` (`bool`) and
 * `d.recheck(query, emit)` (as `prepare`, and may emit pgoutput messages): recheck() is called every
 * `recheck_interval()` while streaming (0: never on a timer), and before the next payload is
 * translated whenever `recheck_due()`; a due recheck that cannot run ends the session, so that the
 * stream resumes after a reconnect, whose `prepare` reads the catalog anew.
 *
 * @par Laws
 * The translation of a session is well-formed pgoutput of `negotiate(ctx).protocol`: every relation
 * described before its changes, changes only inside a transaction, and a Commit whose commit LSN is
 * the one its Begin announced and whose end LSN is the XLogData position it arrived at. The commit
 * LSN is the server's, never invented: it is the exactly-once watermark.
 *
 * @par Models
 * @ref replicant::pgoutput_decoder "pgoutput_decoder" (the identity), `wal2json_decoder` (decoder/wal2json.hpp),
 * `pglogical_decoder` (decoder/pglogical.hpp).
 *
 * @tparam D the decoder type.
 */
template <class D>
concept decoder_policy = detail::has_plugin_name<D> && detail::has_capabilities<D> && detail::has_validate<D> &&
                         detail::has_settings<D> && detail::has_negotiate<D> && detail::has_begin_session<D> &&
                         detail::has_translate<D> && (!D::capabilities.catalog || detail::has_prepare<D>);

namespace detail {

template <class T>
inline constexpr bool always_false = false;

// Settings that belong to another decoder than D: another decoder, or another decoder's options.
template <class T, class D>
concept foreign_decoder_settings = (is_decoder_options<T> || decoder_policy<T>) && !std::constructible_from<D, T>;

/**
 * The decoder checklist of the pipeline: one `static_assert` per member @ref decoder_policy
 * requires (the sink hooks a decoder's capabilities leave uncalled are the pipeline's check,
 * `detail::check_decoder_serves<D, Sink>()` in pipeline/sink_for.hpp). The assertions together are
 * @ref decoder_policy, atom by atom.
 *
 * @return true: a decoder that does not fit does not compile, with one sentence per missing member
 * (returning whether it fits would add a second, bare failure of the caller's `static_assert`).
 */
template <class D>
constexpr auto check_decoder() -> bool {
  static_assert(has_plugin_name<D>,
                "replicant: Decoder must provide `static constexpr std::string_view plugin_name` (the output plugin "
                "CREATE_REPLICATION_SLOT names)");
  static_assert(has_capabilities<D>,
                "replicant: Decoder must provide `static constexpr decoder_capabilities capabilities` (what its "
                "plugin can express)");
  static_assert(has_validate<D>,
                "replicant: Decoder must provide `halt_or<void> validate() const` (checks its options before "
                "anything connects)");
  static_assert(has_settings<D>,
                "replicant: Decoder must provide `plugin_settings settings() const` (what its options ask of the "
                "plugin)");
  static_assert(has_negotiate<D>,
                "replicant: Decoder must provide `result<start_request> negotiate(const decoder_context&) const` "
                "(what START_REPLICATION asks for)");
  static_assert(has_begin_session<D>,
                "replicant: Decoder must provide `void begin_session(const decoder_context&)` (called at every "
                "connect)");
  static_assert(has_translate<D>,
                "replicant: Decoder must provide `result<void> translate(std::span<const std::byte>, Emit&&)` (turns "
                "one XLogData payload into pgoutput messages)");
  if constexpr (has_capabilities<D>) {
    static_assert(!D::capabilities.catalog || has_prepare<D>,
                  "replicant: a Decoder with the catalog capability must provide `result<std::optional<halt>> "
                  "prepare(const query_function&)` (reads the catalog at connect)");
  }
  return true;
}

}  // namespace detail

}  // namespace replicant

#endif  // REPLICANT_DECODER_POLICY_HPP
