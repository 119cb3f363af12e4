// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_IMPL_PGLOGICAL_HPP
#define REPLICANT_DECODER_IMPL_PGLOGICAL_HPP

// Out-of-line bodies of replicant::pglogical_decoder. Included at the bottom of
// <replicant/decoder/pglogical.hpp>.
//
// Each reader follows the pattern of the pgoutput decoder: read the fields through the
// sticky-failure byte_reader, check `finished()` once, then check the session state, and only then
// change the decoder's state. The pgoutput messages are written into `out_` while reading (a tuple
// is copied column by column), and thrown away if the payload turns out to be malformed.

#include <replicant/core/detail/pg_parse.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/detail/text_shape.hpp>

#include <algorithm>
#include <new>
#include <utility>

namespace replicant {

namespace detail {

[[nodiscard]] inline auto pglogical_malformed() noexcept -> std::error_code {
  return make_error_code(errc::decode_failure);
}
[[nodiscard]] inline auto pglogical_out_of_place() noexcept -> std::error_code {
  return make_error_code(errc::protocol_violation);
}

// A string pglogical sends with a one- or two-byte length that counts its terminating NUL.
[[nodiscard]] inline auto read_counted_string(byte_reader& in, std::size_t length) noexcept -> std::string_view {
  if (length == 0) {
    in.fail();
    return {};
  }
  const std::string_view s = as_chars(in.bytes(length));
  if (!in.ok() || s.back() != '\0' || s.substr(0, length - 1).find('\0') != std::string_view::npos) {
    in.fail();
    return {};
  }
  return s.substr(0, length - 1);
}

// Reads one pglogical tuple ('T', Int16 count, then per column 'n', 'u' or 't' Int32 length and the
// text with its NUL) whose width must be @p columns, calling visit(kind, text) for each column.
template <class Visit>
[[nodiscard]] auto read_pglogical_tuple(byte_reader& in, std::size_t columns, Visit&& visit) -> std::error_code {
  if (in.u8() != 'T') return pglogical_malformed();
  const std::size_t count = in.u16();
  if (!in.ok()) return pglogical_malformed();
  if (count != columns) return pglogical_out_of_place();
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint8_t kind = in.u8();
    if (!in.ok()) return pglogical_malformed();
    switch (kind) {
      case 'n':
      case 'u': visit(static_cast<char>(kind), std::string_view{}); break;
      case 't': {
        // The length counts the NUL that pglogical copies along with the text output.
        const std::uint32_t length = in.u32();
        if (!in.ok() || length == 0 || length > INT32_MAX) return pglogical_malformed();
        const std::string_view text = as_chars(in.bytes(length));
        if (!in.ok() || text.back() != '\0') return pglogical_malformed();
        visit('t', text.substr(0, length - 1));
        break;
      }
      // Internal ('i') and send/recv ('b') values come only to a client that asks for them.
      case 'i':
      case 'b': return pglogical_out_of_place();
      default: return pglogical_malformed();
    }
  }
  return {};
}

// Appends the UTF-8 form of @p code (at most U+10FFFF, not a surrogate).
inline auto append_utf8(std::string& out, std::uint32_t code) -> void {
  if (code < 0x80) {
    out.push_back(static_cast<char>(code));
  } else if (code < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (code >> 6)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else if (code < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (code >> 12)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (code >> 18)));
    out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
  }
}

// Reads a JSON string at the start of @p in (after white space), unescaped into @p out. NUL
// (`\u0000`) is refused: the strings read here are names.
[[nodiscard]] inline auto read_json_string(std::string_view& in, std::string& out) -> bool {
  out.clear();
  std::size_t i = in.find_first_not_of(" \t\n\r");
  if (i == std::string_view::npos || in[i] != '"') return false;
  const auto hex4 = [&in](std::size_t at, std::uint32_t& code) {
    if (at + 4 > in.size()) return false;
    code = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const int v = hex_value(in[k]);
      if (v < 0) return false;
      code = code * 16 + static_cast<std::uint32_t>(v);
    }
    return true;
  };
  for (++i; i < in.size(); ++i) {
    const char c = in[i];
    if (c == '"') {
      in.remove_prefix(i + 1);
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return false;
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i == in.size()) return false;
    switch (in[i]) {
      case '"': out.push_back('"'); break;
      case '\\': out.push_back('\\'); break;
      case '/': out.push_back('/'); break;
      case 'b': out.push_back('\b'); break;
      case 'f': out.push_back('\f'); break;
      case 'n': out.push_back('\n'); break;
      case 'r': out.push_back('\r'); break;
      case 't': out.push_back('\t'); break;
      case 'u': {
        std::uint32_t code = 0;
        if (!hex4(i + 1, code) || code == 0) return false;
        i += 4;
        if (code >= 0xDC00 && code <= 0xDFFF) return false;
        if (code >= 0xD800 && code <= 0xDBFF) {
          std::uint32_t low = 0;
          if (i + 2 >= in.size() || in[i + 1] != '\\' || in[i + 2] != 'u' || !hex4(i + 3, low) || low < 0xDC00 ||
              low > 0xDFFF) {
            return false;
          }
          i += 6;
          code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
        }
        append_utf8(out, code);
        break;
      }
      default: return false;
    }
  }
  return false;
}

// The table a pglogical truncate row names: `{"schema_name": "s","table_name": "t"}`, built by
// pglogical_finish_truncate with escape_json. Other members are ignored; both names are required.
[[nodiscard]] inline auto read_truncated_table(std::string_view json, std::string& schema, std::string& table) -> bool {
  std::string key;
  std::string value;
  bool has_schema = false;
  bool has_table = false;
  const auto skip_space = [&json] {
    const std::size_t i = json.find_first_not_of(" \t\n\r");
    json.remove_prefix(i == std::string_view::npos ? json.size() : i);
  };
  skip_space();
  if (json.empty() || json[0] != '{') return false;
  json.remove_prefix(1);
  while (true) {
    if (!read_json_string(json, key)) return false;
    skip_space();
    if (json.empty() || json[0] != ':') return false;
    json.remove_prefix(1);
    if (!read_json_string(json, value)) return false;
    if (key == "schema_name") {
      schema = value;
      has_schema = true;
    } else if (key == "table_name") {
      table = value;
      has_table = true;
    }
    skip_space();
    if (json.empty()) return false;
    if (json[0] == '}') {
      json.remove_prefix(1);
      skip_space();
      return json.empty() && has_schema && has_table && !schema.empty() && !table.empty();
    }
    if (json[0] != ',') return false;
    json.remove_prefix(1);
  }
}

// `'a', 'b'`: the names as SQL literals. Only for names identifier::validate accepted, which hold
// no quote or backslash, so quoting cannot refuse them.
[[nodiscard]] inline auto sql_literal_list(const std::vector<std::string>& names) -> std::string {
  std::string out;
  for (const std::string& n : names) {
    if (!out.empty()) out += ", ";
    out += quote_literal(n).value();
  }
  return out;
}

}  // namespace detail

inline auto pglogical_decoder::start_options() const -> result<std::string> {
  if (options_.replication_sets.empty()) return fail(errc::invalid_options);
  std::string sets;
  for (const std::string& set : options_.replication_sets) {
    if (auto ok = identifier::validate(set); !ok) return unexpected(ok.error());
    // Quoted, because pglogical splits the list with SplitIdentifierString, which folds unquoted
    // names to lower case.
    auto quoted = quote_identifier(set);
    if (!quoted) return unexpected(quoted.error());
    if (!sets.empty()) sets += ',';
    sets += *quoted;
  }
  auto literal = quote_literal(sets);
  if (!literal) return unexpected(literal.error());
  // expected_encoding makes pglogical refuse a database whose text is not UTF-8 at START_REPLICATION
  // instead of sending it unconverted; the two `want` parameters keep every value in text form.
  std::string out =
      "expected_encoding 'UTF8', min_proto_version '1', max_proto_version '1', startup_params_format '1',"
      " proto_format 'native', \"binary.want_internal_basetypes\" '0', \"binary.want_binary_basetypes\" '0',"
      " \"pglogical.replication_set_names\" ";
  out += *literal;
  if (options_.forward_origins) out += ", \"pglogical.forward_origins\" 'all'";
  return out;
}

inline auto pglogical_decoder::validate() const noexcept -> halt_or<void> {
  if (options_.replication_sets.empty()) return refuse(halt_reason::config_invalid);
  for (const std::string& set : options_.replication_sets) {
    if (!identifier::validate(set)) return refuse(halt_reason::invalid_identifier);
  }
  return {};
}

inline auto pglogical_decoder::negotiate(const decoder_context&) const -> result<start_request> {
  auto options = start_options();
  if (!options) return fail(errc::invalid_identifier);
  start_request r;
  r.options = std::move(*options);
  return r;
}

inline auto pglogical_decoder::prepare(const query_function& query) -> result<std::optional<halt>> {
  const auto unsupported = [] {
    return std::optional<halt>{halt{.reason = halt_reason::decoder_unsupported_on_server}};
  };
  // pglogical's output plugin fails at START without the library preloaded (XX000, "not in
  // shared_preload_libraries") or without a local node (55000): both are a server that cannot run
  // this decoder, which no retry will change, so they are found here by name instead.
  std::optional<bool> ready;
  auto asked = query(
      "SELECT 'pglogical' = ANY (string_to_array(replace(current_setting('shared_preload_libraries'), ' ', ''), ','))"
      " AND EXISTS (SELECT 1 FROM pg_catalog.pg_extension WHERE extname = 'pglogical')",
      [&](query_row row) { ready = row.size() == 1 && row[0] == "t"; });
  if (!asked) return unexpected(asked.error());
  if (!ready) return fail(errc::decode_failure);
  if (!*ready) return unsupported();
  std::size_t nodes = 0;
  auto node = query("SELECT count(*) FROM pglogical.local_node", [&](query_row row) {
    if (row.size() == 1 && row[0] != "0") ++nodes;
  });
  if (!node) return unexpected(node.error());
  if (nodes == 0) return unsupported();
  std::vector<std::string> found;
  auto sets = query(
      "SELECT s.set_name FROM pglogical.replication_set s JOIN pglogical.local_node l ON l.node_id = s.set_nodeid"
      " WHERE s.set_name IN (" +
          detail::sql_literal_list(options_.replication_sets) + ")",
      [&](query_row row) {
        if (row.size() == 1) found.emplace_back(row[0]);
      });
  if (!sets) return unexpected(sets.error());
  for (const std::string& set : options_.replication_sets) {
    if (std::find(found.begin(), found.end(), set) == found.end()) {
      // pglogical refuses an unknown set at START with an internal error (22023), retried forever.
      return std::optional<halt>{halt{.reason = halt_reason::publication_missing}};
    }
  }
  auto catalog = read_catalog(query);
  if (!catalog) return unexpected(catalog.error());
  catalog_ = std::move(*catalog);
  return std::optional<halt>{};
}

// The shapes of the replication sets' tables, as the catalog has them now.
inline auto pglogical_decoder::read_catalog(const query_function& query) const -> result<relation_catalog> {
  auto sql = relation_catalog::query_for_replication_sets(options_.replication_sets);
  if (!sql) return unexpected(sql.error());
  relation_catalog catalog;
  std::error_code bad;
  auto read = query(*sql, [&](query_row row) {
    if (bad) return;
    if (auto added = catalog.add_row(row); !added) bad = added.error();
  });
  if (!read) return unexpected(read.error());
  if (bad) return unexpected(bad);
  return catalog;
}

template <pgoutput_emitter Emit>
auto pglogical_decoder::recheck(const query_function& query, Emit&& emit) -> result<std::optional<halt>> {
  auto now = read_catalog(query);
  if (!now) return unexpected(now.error());
  catalog_ = std::move(*now);
  recheck_due_ = false;
  out_.clear();
  for (auto& entry : relations_) {
    relation_state& state = entry.second;
    if (state.queue || !state.pending) continue;
    describe_with_catalog(state);
    describe_if_pending(state);
  }
  if (auto emitted = detail::emit_all(out_, emit); !emitted) return unexpected(emitted.error());
  return std::optional<halt>{};
}

template <pgoutput_emitter Emit>
auto pglogical_decoder::translate(std::span<const std::byte> payload, Emit&& emit) -> result<void> {
  std::error_code ec;
  try {
    ec = translate_payload(payload);
  } catch (const std::bad_alloc&) {
    ec = std::make_error_code(std::errc::not_enough_memory);
  }
  if (ec) {
    out_.clear();
    return unexpected(ec);
  }
  return detail::emit_all(out_, emit);
}

inline auto pglogical_decoder::reset() noexcept -> void {
  startup_.reset();
  in_transaction_ = false;
  recheck_due_ = false;  // a new session reads the catalog at connect
  relations_.clear();
}

inline auto pglogical_decoder::find_relation(std::uint32_t oid) const noexcept -> const relation_info* {
  const auto it = relations_.find(oid);
  return it == relations_.end() || it->second.queue ? nullptr : &it->second.shape;
}

inline auto pglogical_decoder::translate_payload(std::span<const std::byte> payload) -> std::error_code {
  out_.clear();
  detail::byte_reader in{payload};
  const std::uint8_t type = in.u8();
  switch (type) {
    case 'I':
    case 'U':
    case 'D': return read_change(type, in);
    case 'B': return read_begin(in);
    case 'C': return read_commit(in);
    case 'R': return read_relation(in);
    case 'O': return read_origin(in);
    case 'S': return read_startup(in);
    default: return detail::pglogical_malformed();
  }
}

inline auto pglogical_decoder::read_startup(detail::byte_reader& in) -> std::error_code {
  const std::uint8_t format = in.u8();
  if (!in.ok()) return detail::pglogical_malformed();
  // PGLOGICAL_STARTUP_MSG_FORMAT_FLAT: key/value strings to the end. Another format cannot be read.
  if (format != 1) return make_error_code(errc::protocol_unsupported);
  pglogical_startup s;
  std::optional<std::uint32_t> min_version;
  std::optional<std::uint32_t> max_version;
  while (in.remaining() > 0) {
    const std::string_view key = in.string();
    const std::string_view value = in.string();
    if (!in.ok()) return detail::pglogical_malformed();
    std::uint32_t number = 0;
    if (key == "min_proto_version" || key == "max_proto_version") {
      if (!detail::parse_decimal(value, number)) return detail::pglogical_malformed();
      if (key == "min_proto_version") {
        min_version = number;
      } else {
        max_version = number;
      }
    } else if (key == "pglogical_version") {
      s.pglogical_version = std::string{value};
    } else if (key == "pg_version") {
      s.pg_version = std::string{value};
    } else if (key == "encoding") {
      s.encoding = std::string{value};
    }
  }
  if (!min_version || !max_version || *min_version > protocol_version || *max_version < protocol_version) {
    return make_error_code(errc::protocol_unsupported);
  }
  // Values are sent unconverted; casting reads them as UTF-8.
  if (s.encoding != "UTF8") return make_error_code(errc::unsupported_server);
  if (in_transaction_) return detail::pglogical_out_of_place();
  s.min_proto_version = *min_version;
  s.max_proto_version = *max_version;
  startup_ = std::move(s);
  return {};
}

inline auto pglogical_decoder::read_begin(detail::byte_reader& in) -> std::error_code {
  const std::uint8_t flags = in.u8();
  const lsn final_lsn{in.u64()};
  const std::int64_t commit_time = in.i64();
  const std::uint32_t xid = in.u32();
  if (!in.finished() || flags != 0) return detail::pglogical_malformed();
  if (!startup_ || in_transaction_) return detail::pglogical_out_of_place();
  out_.begin(final_lsn, commit_time, xid);
  in_transaction_ = true;
  final_lsn_ = final_lsn;
  return {};
}

inline auto pglogical_decoder::read_commit(detail::byte_reader& in) -> std::error_code {
  const std::uint8_t flags = in.u8();
  const lsn commit_lsn{in.u64()};
  const lsn end_lsn{in.u64()};
  const std::int64_t commit_time = in.i64();
  if (!in.finished() || flags != 0) return detail::pglogical_malformed();
  // The Begin announced where the commit record is; a Commit elsewhere would move the watermark
  // to a position that was never committed (the assembler refuses it too).
  if (!in_transaction_ || commit_lsn != final_lsn_) return detail::pglogical_out_of_place();
  out_.commit(commit_lsn, end_lsn, commit_time);
  in_transaction_ = false;
  return {};
}

inline auto pglogical_decoder::read_origin(detail::byte_reader& in) -> std::error_code {
  const std::uint8_t flags = in.u8();
  const lsn origin_lsn{in.u64()};
  const std::size_t length = in.u8();
  const std::string_view name = detail::read_counted_string(in, length);
  if (!in.finished() || flags != 0) return detail::pglogical_malformed();
  if (!in_transaction_) return detail::pglogical_out_of_place();
  out_.origin(origin_lsn, name);
  return {};
}

inline auto pglogical_decoder::read_relation(detail::byte_reader& in) -> std::error_code {
  const std::uint8_t flags = in.u8();
  const std::uint32_t oid = in.u32();
  const std::string_view schema = detail::read_counted_string(in, in.u8());
  const std::string_view table = detail::read_counted_string(in, in.u8());
  const bool attrs_marker = in.u8() == 'A';
  const std::size_t count = in.u16();
  if (!in.ok() || flags != 0 || !attrs_marker || count > detail::max_columns) return detail::pglogical_malformed();

  relation_state state;
  relation_info& r = state.shape;
  r.oid = oid;
  r.schema = std::string{schema};
  r.table = std::string{table};
  r.columns.reserve(count);
  bool any_key = false;
  for (std::size_t i = 0; i < count; ++i) {
    const bool column_marker = in.u8() == 'C';
    const std::uint8_t column_flags = in.u8();
    const bool name_marker = in.u8() == 'N';
    const std::string_view name = detail::read_counted_string(in, in.u16());
    // Bit 0 is the only flag pglogical defines (IS_REPLICA_IDENTITY).
    if (!in.ok() || !column_marker || !name_marker || (column_flags & ~1U) != 0) return detail::pglogical_malformed();
    const bool key = (column_flags & 1U) != 0;
    any_key = any_key || key;
    r.columns.push_back(column_info{std::string{name}, 0, -1, key});
  }
  if (!in.finished() || detail::has_duplicate_names(r.columns)) return detail::pglogical_malformed();

  if (r.schema == "pglogical" && r.table == "queue") {
    // pglogical's own message queue (truncates, DDL): read, never forwarded.
    state.queue = true;
    state.message_type_column = r.column_index("message_type");
    state.message_column = r.column_index("message");
    relations_.insert_or_assign(oid, std::move(state));
    return {};
  }

  // The catalog read at connect may be stale by now: pglogical sends a table's description before
  // its first change in a session and again after anything changed its definition, with names but
  // no types. So the description waits for recheck(), which reads the catalog as it is now (or,
  // without one, for the table's next change, with the catalog as it was).
  state.key_flagged = any_key;
  describe_with_catalog(state);
  state.pending = true;
  recheck_due_ = true;
  relations_.insert_or_assign(oid, std::move(state));
  return {};
}

// Types and the replica identity from the catalog: pglogical sends neither. A column the catalog
// does not know keeps an unknown type.
inline auto pglogical_decoder::describe_with_catalog(relation_state& state) const -> void {
  relation_info& r = state.shape;
  // By OID, else by name for a table recreated since.
  const relation_info* known = catalog_.find(r.oid);
  if (known == nullptr) known = catalog_.find(r.schema, r.table);
  for (column_info& c : r.columns) {
    const column_info* k = known == nullptr ? nullptr : detail::find_named(known->columns, c.name);
    if (k != nullptr) {
      c.type_oid = k->type_oid;
      c.type_modifier = k->type_modifier;
    }
  }
  // pglogical flags the identity index's columns, none under REPLICA IDENTITY FULL (whose key
  // tuple is the whole old row); the catalog tells FULL from a keyless insert-only table, and an
  // index identity from the primary key.
  if (state.key_flagged) {
    r.identity = known != nullptr && known->identity == replica_identity::index ? replica_identity::index
                                                                                : replica_identity::default_key;
  } else {
    r.identity = known != nullptr ? known->identity : replica_identity::full;
    for (column_info& c : r.columns) c.key = r.identity == replica_identity::full;
  }
}

// A table described in this session whose description waits for the catalog goes out as it is,
// before its first change: a decoder used without recheck() still describes every table.
inline auto pglogical_decoder::describe_if_pending(relation_state& state) -> void {
  if (!state.pending) return;
  state.pending = false;
  out_.relation(state.shape);
}

inline auto pglogical_decoder::describe_from_catalog(const relation_info& known) -> std::uint32_t {
  relation_state state;
  state.shape = known;
  out_.relation(state.shape);
  relations_.insert_or_assign(known.oid, std::move(state));
  return known.oid;
}

inline auto pglogical_decoder::queued_row(const relation_state& queue, detail::byte_reader& in) -> std::error_code {
  queue_values_.assign(queue.shape.columns.size(), std::string_view{});
  std::size_t at = 0;
  if (const std::error_code ec =
          detail::read_pglogical_tuple(in, queue.shape.columns.size(), [this, &at](char kind, std::string_view text) {
            if (kind == 't') queue_values_[at] = text;
            ++at;
          })) {
    return ec;
  }
  if (!in.finished()) return detail::pglogical_malformed();
  if (!queue.message_type_column || !queue.message_column) return {};
  // QUEUE_COMMAND_TYPE_TRUNCATE; the other kinds are pglogical's own (DDL, sync, sequences).
  if (queue_values_[*queue.message_type_column] != "T") return {};
  std::string schema;
  std::string table;
  if (!detail::read_truncated_table(queue_values_[*queue.message_column], schema, table)) {
    return detail::pglogical_malformed();
  }
  // The table is described in this session if pglogical sent changes of it; otherwise the catalog
  // describes it (pglogical queues truncates only for tables of the subscribed sets).
  std::optional<std::uint32_t> oid;
  for (auto& [id, state] : relations_) {
    if (!state.queue && state.shape.schema == schema && state.shape.table == table) {
      describe_if_pending(state);
      oid = id;
    }
  }
  if (!oid) {
    const relation_info* known = catalog_.find(schema, table);
    if (known == nullptr) {
      // Neither seen nor in the catalog: no relation to truncate can be named. Fail rather than
      // lose the truncate.
      return detail::pglogical_out_of_place();
    }
    oid = describe_from_catalog(*known);
  }
  out_.truncate(*oid, 0);
  return {};
}

inline auto pglogical_decoder::read_change(std::uint8_t type, detail::byte_reader& in) -> std::error_code {
  const std::uint8_t flags = in.u8();
  const std::uint32_t oid = in.u32();
  if (!in.ok() || flags != 0) return detail::pglogical_malformed();
  const auto it = relations_.find(oid);
  if (!in_transaction_ || it == relations_.end()) return detail::pglogical_out_of_place();
  relation_state& state = it->second;
  if (state.queue) {
    if (type != 'I') return {};
    if (in.u8() != 'N') return detail::pglogical_malformed();
    return queued_row(state, in);
  }
  describe_if_pending(state);
  const relation_info& r = state.shape;
  const std::size_t width = r.columns.size();
  // A numeric or bytea text without its type's shape (detail/text_shape.hpp) makes the row
  // malformed; the tuple is still read to its end, and out_ is discarded with the error.
  bool sound = true;
  std::size_t at = 0;
  const auto copy_column = [this, &r, &sound, &at](char kind, std::string_view text) {
    const std::uint32_t type_oid = r.columns[at++].type_oid;  // the tuple has one entry per column
    if (kind == 'n') {
      out_.null_column();
    } else if (kind == 'u') {
      out_.unchanged_column();
    } else {
      out_.text_column(text);
      sound = sound && detail::has_its_shape(type_oid, text);
    }
  };
  out_.row_head(static_cast<char>(type), oid);
  std::uint8_t marker = in.u8();
  if (type != 'I' && marker == 'K') {
    // pglogical marks every old tuple 'K'; under REPLICA IDENTITY FULL it is the whole row, which
    // pgoutput marks 'O'.
    out_.tuple_marker(r.identity == replica_identity::full ? 'O' : 'K');
    out_.tuple_head(width);
    if (const std::error_code ec = detail::read_pglogical_tuple(in, width, copy_column)) return ec;
    marker = type == 'D' ? std::uint8_t{'N'} : in.u8();
    at = 0;
  } else if (type == 'D') {
    return detail::pglogical_malformed();  // a delete always carries its key
  }
  if (type != 'D') {
    if (marker != 'N') return detail::pglogical_malformed();
    out_.tuple_marker('N');
    out_.tuple_head(width);
    if (const std::error_code ec = detail::read_pglogical_tuple(in, width, copy_column)) return ec;
  }
  if (!in.finished() || !sound) return detail::pglogical_malformed();
  out_.end();
  return {};
}

}  // namespace replicant

#endif  // REPLICANT_DECODER_IMPL_PGLOGICAL_HPP
