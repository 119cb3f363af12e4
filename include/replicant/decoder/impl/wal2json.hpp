// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_DECODER_IMPL_WAL2JSON_HPP
#define REPLICANT_DECODER_IMPL_WAL2JSON_HPP

// Out-of-line bodies of replicant::wal2json_decoder. Included at the bottom of
// <replicant/decoder/wal2json.hpp>.
//
// A payload goes through two steps. parse() reads the one JSON object into `doc_`, checking the
// JSON type of every field it knows and skipping the others (wal2json adds fields with options we
// do not ask for, and may add more in later versions). Then one handler per action checks the
// object against the session (inside a transaction or not), works out the table's shape, and
// writes the pgoutput messages into `out_`. Nothing reaches the caller before both steps are done.

#include <replicant/core/detail/byte_reader.hpp>
#include <replicant/core/detail/pg_parse.hpp>
#include <replicant/core/halt.hpp>
#include <replicant/decoder/detail/text_shape.hpp>
#include <replicant/decoder/detail/wal2json_text.hpp>
#include <replicant/model/pg_type.hpp>

#include <algorithm>
#include <cstring>
#include <new>
#include <utility>

namespace replicant {

namespace detail {

[[nodiscard]] inline auto wal2json_malformed() noexcept -> std::error_code {
  return make_error_code(errc::decode_failure);
}

// The first bytes of every message object wal2json writes (it prints no white space unless asked
// to pretty-print, which the decoder never asks for).
inline constexpr std::string_view wal2json_message_start = R"({"action":"M")";

}  // namespace detail

inline auto wal2json_decoder::start_options() const -> result<std::string> {
  return build_start_options(!options_.allow_special_numbers_as_null);
}

inline auto wal2json_decoder::build_start_options(bool numeric_as_string) const -> result<std::string> {
  if (options_.tables.empty()) return fail(errc::invalid_options);
  std::string tables;
  for (const table_name& t : options_.tables) {
    for (const std::string* part : {&t.schema, &t.name}) {
      if (auto ok = identifier::validate(*part); !ok) return unexpected(ok.error());
    }
    if (!tables.empty()) tables += ',';
    tables += detail::wal2json_escape_name(t.schema);
    tables += '.';
    tables += detail::wal2json_escape_name(t.name);
  }
  auto quoted = quote_literal(tables);
  if (!quoted) return unexpected(quoted.error());
  // Every option is spelled out, also where wal2json's default is already right, so that the
  // stream does not depend on defaults that have changed between releases (`actions`) or that a
  // build may change (WAL2JSON_FORMAT_VERSION). Option names hold hyphens, hence the quotes.
  std::string out =
      "\"format-version\" '2', \"include-transaction\" '1', \"include-xids\" '1', \"include-timestamp\" '1',"
      " \"include-lsn\" '1', \"include-schemas\" '1', \"include-types\" '1', \"include-typmod\" '1',"
      " \"include-type-oids\" '1', \"include-pk\" '1', \"actions\" 'insert,update,delete,truncate',"
      " \"add-tables\" ";
  out += *quoted;
  if (numeric_as_string) out += ", \"numeric-data-types-as-string\" '1'";
  return out;
}

inline auto wal2json_decoder::validate() const noexcept -> halt_or<void> {
  if (options_.tables.empty() || options_.schema_check_interval.count() < 0) return refuse(halt_reason::config_invalid);
  for (const table_name& t : options_.tables) {
    if (!identifier::validate(t.schema) || !identifier::validate(t.name)) {
      return refuse(halt_reason::invalid_identifier);
    }
  }
  return {};
}

inline auto wal2json_decoder::negotiate(const decoder_context&) const -> result<start_request> {
  auto options = start_options();
  if (!options) return fail(errc::invalid_identifier);
  start_request r;
  r.options = std::move(*options);
  // wal2json refuses an option it does not know, and numeric-data-types-as-string arrived in 2.6:
  // if START fails with it and starts without it, the plugin is too old for what was asked, and
  // starting without it anyway would deliver NaN and infinities as NULL.
  if (!options_.allow_special_numbers_as_null) {
    auto plain = build_start_options(false);
    if (!plain) return fail(errc::invalid_identifier);
    r.fallback_options = std::move(*plain);
  }
  return r;
}

inline auto wal2json_decoder::read_catalog(const query_function& query, relation_catalog& out) const -> result<void> {
  auto sql = relation_catalog::query_for_tables(options_.tables);
  if (!sql) return unexpected(sql.error());
  std::error_code bad;
  auto ran = query(*sql, [&](query_row row) {
    if (bad) return;
    if (auto added = out.add_row(row); !added) bad = added.error();
  });
  if (!ran) return ran;
  if (bad) return unexpected(bad);
  return {};
}

inline auto wal2json_decoder::check_tables(const relation_catalog& catalog) const -> std::optional<halt> {
  for (const table_name& t : options_.tables) {
    const relation_info* r = catalog.find(t.schema, t.name);
    halt h;
    if (r == nullptr) {
      // add-tables matches names: a missing table would silently stream nothing.
      h.reason = halt_reason::decoder_table_missing;
    } else if (!options_.allow_keyless_tables && r->identity != replica_identity::full &&
               std::none_of(r->columns.begin(), r->columns.end(), [](const column_info& c) { return c.key; })) {
      // No identity index and not FULL (or REPLICA IDENTITY NOTHING): wal2json drops the table's
      // updates and deletes with only a WARNING in the server log.
      h.reason = halt_reason::table_keyless;
    } else {
      continue;
    }
    h.table = t;
    return h;
  }
  return std::nullopt;
}

inline auto wal2json_decoder::prepare(const query_function& query) -> result<std::optional<halt>> {
  relation_catalog catalog;
  if (auto read = read_catalog(query, catalog); !read) return unexpected(read.error());
  if (auto h = check_tables(catalog)) return h;
  // Shapes kept from an earlier session lose the columns dropped in between, as a new pgoutput
  // session describes each table as it is now.
  for (auto& entry : tables_) {
    table_state& state = entry.second;
    if (!state.shape) continue;
    if (const relation_info* now = catalog.find(state.shape->schema, state.shape->table)) {
      std::erase_if(state.shape->columns,
                    [now](const column_info& c) { return detail::find_named(now->columns, c.name) == nullptr; });
    }
  }
  catalog_ = std::move(catalog);
  return std::optional<halt>{};
}

template <pgoutput_emitter Emit>
auto wal2json_decoder::recheck(const query_function& query, Emit&& emit) -> result<std::optional<halt>> {
  relation_catalog now;
  if (auto read = read_catalog(query, now); !read) return unexpected(read.error());
  if (auto h = check_tables(now)) return h;
  out_.clear();
  for (auto& entry : tables_) {
    table_state& state = entry.second;
    if (!state.described || !state.shape) continue;
    const relation_info* current = now.find(state.shape->schema, state.shape->table);
    if (current == nullptr) continue;
    relation_info shape = *state.shape;
    std::erase_if(shape.columns,
                  [current](const column_info& c) { return detail::find_named(current->columns, c.name) == nullptr; });
    if (shape.columns.size() == state.shape->columns.size()) continue;
    // Described again with the key as it is now, which is what pgoutput's Relation would say.
    shape.identity = current->identity;
    for (column_info& c : shape.columns) {
      const column_info* known = detail::find_named(current->columns, c.name);
      c.key = shape.identity == replica_identity::full || (known != nullptr && known->key);
    }
    state.shape = std::move(shape);
    out_.relation(*state.shape);
  }
  catalog_ = std::move(now);
  if (auto emitted = detail::emit_all(out_, emit); !emitted) return unexpected(emitted.error());
  return std::optional<halt>{};
}

template <pgoutput_emitter Emit>
auto wal2json_decoder::translate(std::span<const std::byte> payload, Emit&& emit) -> result<void> {
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

inline auto wal2json_decoder::reset() noexcept -> void {
  in_transaction_ = false;
  for (auto& entry : tables_) entry.second.described = false;
}

inline auto wal2json_decoder::find_relation(std::string_view schema, std::string_view table) const
    -> const relation_info* {
  std::string key{schema};
  key.push_back('\0');
  key.append(table);
  const auto it = tables_.find(key);
  return it == tables_.end() || !it->second.shape ? nullptr : &*it->second.shape;
}

inline auto wal2json_decoder::translate_payload(std::span<const std::byte> payload) -> std::error_code {
  out_.clear();
  if (payload.empty()) return detail::wal2json_malformed();
  // Messages the caller did not ask for are dropped unread: their content is whatever the emitter
  // chose, possibly bytes that are not UTF-8 and therefore not readable as JSON at all.
  if (!options_.messages &&
      detail::as_chars(payload).substr(0, detail::wal2json_message_start.size()) == detail::wal2json_message_start) {
    return {};
  }
  if (const std::error_code ec = parse(payload)) return ec;
  switch (doc_.action) {
    case 'I':
    case 'U':
    case 'D': return row_change();
    case 'B':
    case 'C': return transaction_boundary();
    case 'T': return truncation();
    case 'M': return options_.messages ? message() : std::error_code{};
    default: return detail::wal2json_malformed();
  }
}

inline auto wal2json_decoder::parse(std::span<const std::byte> payload) -> std::error_code {
  namespace od = simdjson::ondemand;
  const auto bad = detail::wal2json_malformed;
  // simdjson reads up to SIMDJSON_PADDING bytes past the end of its input; the buffer only grows.
  const std::size_t size = payload.size();
  if (input_.size() < size + simdjson::SIMDJSON_PADDING) input_.resize(size + simdjson::SIMDJSON_PADDING);
  std::memcpy(input_.data(), payload.data(), size);

  doc_.action = 0;
  doc_.xid.reset();
  doc_.timestamp.reset();
  doc_.lsn.reset();
  doc_.next_lsn.reset();
  doc_.schema.reset();
  doc_.table.reset();
  doc_.has_columns = doc_.has_identity = doc_.has_pk = false;
  doc_.columns.clear();
  doc_.identity.clear();
  doc_.pk.clear();
  doc_.transactional.reset();
  doc_.prefix.reset();
  doc_.content.reset();

  od::document d;
  if (parser_.iterate(input_.data(), size, input_.size()).get(d) != simdjson::SUCCESS) return bad();
  od::object object;
  if (d.get_object().get(object) != simdjson::SUCCESS) return bad();
  const auto string_field = [](od::value& v, std::optional<std::string_view>& out, bool nullable) -> bool {
    od::json_type t{};
    if (v.type().get(t) != simdjson::SUCCESS) return false;
    if (nullable && t == od::json_type::null) return true;  // non-transactional messages: "timestamp":null
    std::string_view s;
    if (t != od::json_type::string || v.get_string().get(s) != simdjson::SUCCESS) return false;
    out = s;
    return true;
  };
  for (auto member : object) {
    od::field field;
    std::string_view key;
    if (std::move(member).get(field) != simdjson::SUCCESS || field.unescaped_key().get(key) != simdjson::SUCCESS)
      return bad();
    od::value& v = field.value();
    bool ok = true;
    if (key == "action") {
      std::optional<std::string_view> action;
      ok = string_field(v, action, false) && action->size() == 1;
      if (ok) doc_.action = (*action)[0];
    } else if (key == "xid") {
      od::json_type t{};
      ok = v.type().get(t) == simdjson::SUCCESS;
      if (ok && t != od::json_type::null) {
        std::uint64_t xid = 0;
        ok = t == od::json_type::number && v.get_uint64().get(xid) == simdjson::SUCCESS && xid <= UINT32_MAX;
        if (ok) doc_.xid = static_cast<std::uint32_t>(xid);
      }
    } else if (key == "timestamp") {
      ok = string_field(v, doc_.timestamp, true);
    } else if (key == "lsn") {
      ok = string_field(v, doc_.lsn, false);
    } else if (key == "nextlsn") {
      ok = string_field(v, doc_.next_lsn, false);
    } else if (key == "schema") {
      ok = string_field(v, doc_.schema, false);
    } else if (key == "table") {
      ok = string_field(v, doc_.table, false);
    } else if (key == "columns") {
      doc_.has_columns = true;
      if (const std::error_code ec = parse_columns(v, doc_.columns, true)) return ec;
    } else if (key == "identity") {
      doc_.has_identity = true;
      if (const std::error_code ec = parse_columns(v, doc_.identity, true)) return ec;
    } else if (key == "pk") {
      doc_.has_pk = true;
      if (const std::error_code ec = parse_columns(v, doc_.pk, false)) return ec;
    } else if (key == "transactional") {
      bool b = false;
      ok = v.get_bool().get(b) == simdjson::SUCCESS;
      if (ok) doc_.transactional = b;
    } else if (key == "prefix") {
      ok = string_field(v, doc_.prefix, false);
    } else if (key == "content") {
      ok = string_field(v, doc_.content, false);
    }
    // Other fields ("origin", and those of options never requested) are skipped unread.
    if (!ok) return bad();
  }
  // Exactly one object: anything after it means the payload is not what wal2json writes.
  const char* trailing = nullptr;
  if (d.current_location().get(trailing) == simdjson::SUCCESS) return bad();
  return {};
}

inline auto wal2json_decoder::parse_columns(simdjson::ondemand::value& v, std::vector<json_column>& out,
                                            bool with_values) -> std::error_code {
  namespace od = simdjson::ondemand;
  const auto bad = detail::wal2json_malformed;
  od::array elements;
  if (v.get_array().get(elements) != simdjson::SUCCESS) return bad();
  for (auto element : elements) {
    od::object object;
    if (element.get_object().get(object) != simdjson::SUCCESS) return bad();
    json_column c;
    bool has_name = false;
    bool has_oid = false;
    bool has_value = false;
    for (auto member : object) {
      od::field field;
      std::string_view key;
      if (std::move(member).get(field) != simdjson::SUCCESS || field.unescaped_key().get(key) != simdjson::SUCCESS)
        return bad();
      od::value& value = field.value();
      if (key == "name") {
        if (value.get_string().get(c.name) != simdjson::SUCCESS) return bad();
        has_name = true;
      } else if (key == "type") {
        if (value.get_string().get(c.type_name) != simdjson::SUCCESS) return bad();
      } else if (key == "typeoid") {
        // Printed with "%d": an OID above 2^31 arrives negative.
        std::int64_t oid = 0;
        if (value.get_int64().get(oid) != simdjson::SUCCESS || oid < INT32_MIN || oid > UINT32_MAX) return bad();
        c.type_oid = static_cast<std::uint32_t>(static_cast<std::uint64_t>(oid) & 0xFFFF'FFFFU);
        has_oid = true;
      } else if (key == "value") {
        if (const std::error_code ec = parse_value(value, c.value)) return ec;
        has_value = true;
      }
    }
    if (!has_name || c.name.empty() || detail::has_nul(c.name)) return bad();
    if (with_values && (!has_oid || !has_value)) return bad();
    if (out.size() == detail::max_columns) return bad();
    out.push_back(c);
  }
  return {};
}

inline auto wal2json_decoder::parse_value(simdjson::ondemand::value& v, json_value& out) -> std::error_code {
  namespace od = simdjson::ondemand;
  od::json_type t{};
  if (v.type().get(t) != simdjson::SUCCESS) return detail::wal2json_malformed();
  switch (t) {
    case od::json_type::null: {
      bool is_null = false;
      if (v.is_null().get(is_null) != simdjson::SUCCESS || !is_null) return detail::wal2json_malformed();
      out = {json_value::kind::json_null, {}};
      return {};
    }
    case od::json_type::string: {
      std::string_view s;
      if (v.get_string().get(s) != simdjson::SUCCESS) return detail::wal2json_malformed();
      out = {json_value::kind::string, s};
      return {};
    }
    case od::json_type::number: {
      // The literal as printed (the type's output function), never a double: numeric keeps every
      // digit, int8 every bit. On-Demand does not check a token it is not asked to convert.
      std::string_view raw = v.raw_json_token();
      while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\n' || raw.back() == '\r')) {
        raw.remove_suffix(1);
      }
      if (!detail::is_json_number(raw)) return detail::wal2json_malformed();
      out = {json_value::kind::number, raw};
      return {};
    }
    case od::json_type::boolean: {
      bool b = false;
      if (v.get_bool().get(b) != simdjson::SUCCESS) return detail::wal2json_malformed();
      out = {b ? json_value::kind::yes : json_value::kind::no, {}};
      return {};
    }
    default: return detail::wal2json_malformed();  // arrays and objects: wal2json prints neither
  }
}

inline auto wal2json_decoder::transaction_boundary() -> std::error_code {
  // The commit LSN is the exactly-once watermark: without it a transaction cannot be acknowledged
  // correctly, so its absence is a halt of its own rather than a malformed payload.
  if (!doc_.lsn || (doc_.action == 'C' && !doc_.next_lsn)) return make_error_code(errc::lsn_missing);
  const auto at = parse_lsn(*doc_.lsn);
  std::int64_t time = 0;
  if (!at || !doc_.xid || !doc_.timestamp || !detail::parse_timestamp(*doc_.timestamp, true, time)) {
    return detail::wal2json_malformed();
  }
  if (doc_.action == 'B') {
    if (in_transaction_) return make_error_code(errc::protocol_violation);
    out_.begin(*at, time, *doc_.xid);
    in_transaction_ = true;
    final_lsn_ = *at;
    return {};
  }
  const auto end = parse_lsn(*doc_.next_lsn);
  if (!end) return detail::wal2json_malformed();
  // The Begin announced where the commit record is; a Commit elsewhere would move the watermark
  // to a position that was never committed (the assembler refuses it too).
  if (!in_transaction_ || *at != final_lsn_) return make_error_code(errc::protocol_violation);
  out_.commit(*at, *end, time);
  in_transaction_ = false;
  return {};
}

inline auto wal2json_decoder::table_for(std::string_view schema, std::string_view table) -> table_state& {
  key_.assign(schema);
  key_.push_back('\0');  // names hold no NUL (checked), so the key is unambiguous
  key_.append(table);
  if (const auto it = tables_.find(key_); it != tables_.end()) return it->second;
  table_state state;
  if (const relation_info* known = catalog_.find(schema, table)) {
    state.oid = known->oid;
    state.shape = *known;  // the seed; sent before the first change if that change fits it
  } else {
    state.oid = next_synthetic_oid_--;
  }
  return tables_.emplace(key_, std::move(state)).first->second;
}

inline auto wal2json_decoder::fits(const relation_info& shape) const -> bool {
  const auto& cols = shape.columns;
  // Same type, and the same modifier where the type name shows one (a varchar widened by ALTER
  // TABLE keeps its type OID; pgoutput describes the table again, and so must the translation).
  const auto same_type = [](const column_info& c, const json_column& sent) {
    if (c.type_oid != sent.type_oid) return false;
    const std::int32_t shown = detail::typmod_from_type_name(sent.type_name);
    if (detail::type_name_shows_modifier(sent.type_oid)) return shown == c.type_modifier;
    if (sent.type_name.find('(') == std::string_view::npos) return true;
    return shown == -1 || shown == c.type_modifier;
  };
  // Old values must all have a column to go into.
  for (const json_column& k : doc_.identity) {
    const column_info* c = detail::find_named(cols, k.name);
    if (c == nullptr || c->type_oid != k.type_oid) return false;
  }
  switch (doc_.action) {
    case 'I': {
      if (doc_.columns.size() != cols.size()) return false;
      for (std::size_t i = 0; i < cols.size(); ++i) {
        if (cols[i].name != doc_.columns[i].name || !same_type(cols[i], doc_.columns[i])) return false;
      }
      return true;
    }
    case 'U': {
      // The columns sent, in order, with the left-out ones TOASTable (unchanged, not dropped).
      std::size_t j = 0;
      for (const column_info& c : cols) {
        if (j < doc_.columns.size() && doc_.columns[j].name == c.name) {
          if (!same_type(c, doc_.columns[j])) return false;
          ++j;
        } else if (detail::is_fixed_width_type(c.type_oid)) {
          return false;
        }
      }
      return j == doc_.columns.size();
    }
    default: return true;  // 'D' (identity checked above) and 'T'
  }
}

inline auto wal2json_decoder::build_shape(const table_state& state) const -> relation_info {
  relation_info r;
  r.oid = state.oid;
  r.schema = std::string{*doc_.schema};
  r.table = std::string{*doc_.table};
  const relation_info* base = state.shape ? &*state.shape : nullptr;
  const relation_info* known = catalog_.find(r.schema, r.table);

  // The modifier wal2json's type name shows, or else the one known for the same column and type.
  const auto type_modifier = [&](const json_column& c) -> std::int32_t {
    const std::int32_t from_name = detail::typmod_from_type_name(c.type_name);
    if (from_name != -1 || detail::type_name_shows_modifier(c.type_oid)) return from_name;
    for (const relation_info* reference : {base, known}) {
      if (reference == nullptr) continue;
      const column_info* same = detail::find_named(reference->columns, c.name);
      if (same != nullptr && same->type_oid == c.type_oid) return same->type_modifier;
    }
    return -1;
  };
  const auto add = [&](const json_column& c) {
    r.columns.push_back(column_info{std::string{c.name}, c.type_oid, type_modifier(c), false});
  };
  const auto present = [&r](std::string_view name) { return detail::find_named(r.columns, name) != nullptr; };

  if (doc_.action == 'I') {
    // An INSERT carries every live column: it is the whole shape.
    for (const json_column& c : doc_.columns) add(c);
  } else {
    if (base != nullptr) {
      for (const column_info& bc : base->columns) {
        const json_column* sent = detail::find_named(doc_.columns, bc.name);
        if (sent == nullptr) sent = detail::find_named(doc_.identity, bc.name);
        if (sent != nullptr) {
          add(*sent);  // possibly with another type than before
        } else if (doc_.action != 'U' || !detail::is_fixed_width_type(bc.type_oid)) {
          r.columns.push_back(bc);  // not sent: unchanged TOAST (UPDATE), or not part of the change
        }
        // A fixed-width column an UPDATE left out cannot be unchanged TOAST: it was dropped.
      }
    }
    // Columns added since are the highest-numbered, so they come after the known ones.
    for (const json_column& c : doc_.columns) {
      if (!present(c.name)) add(c);
    }
    for (const json_column& c : doc_.identity) {
      if (!present(c.name)) add(c);
    }
  }

  // Replica identity and key flags: the catalog knows them; wal2json only tells the primary key.
  if (known != nullptr) {
    r.identity = known->identity;
    for (column_info& c : r.columns) {
      const column_info* k = detail::find_named(known->columns, c.name);
      c.key = r.identity == replica_identity::full || (k != nullptr && k->key);
    }
  } else if (doc_.has_pk) {
    // Without a primary key, only REPLICA IDENTITY FULL lets wal2json send UPDATEs and DELETEs
    // at all (an index identity without a primary key is the one case read wrongly here).
    r.identity = doc_.pk.empty() ? replica_identity::full : replica_identity::default_key;
    for (column_info& c : r.columns) {
      c.key = doc_.pk.empty() || detail::find_named(doc_.pk, c.name) != nullptr;
    }
  } else if (base != nullptr) {
    r.identity = base->identity;
    for (column_info& c : r.columns) {
      const column_info* b = detail::find_named(base->columns, c.name);
      c.key = r.identity == replica_identity::full || (b != nullptr && b->key);
    }
  }
  return r;
}

// Writes @p v as the text column pgoutput would have sent; false when that text lacks the shape a
// numeric or bytea value must have (detail/text_shape.hpp), which makes the row malformed.
inline auto wal2json_decoder::write_value(const json_value& v, std::uint32_t type_oid) -> bool {
  std::string_view text = v.text;
  switch (v.type) {
    case json_value::kind::json_null: out_.null_column(); return true;
    case json_value::kind::string:
      // wal2json prints bytea_out's text without its leading `\x` (pg_decode_write_value).
      if (type_oid == pg_type::bytea) {
        out_.text_column(text, "\\x");
        return detail::is_hex_pairs(text);
      }
      break;
    case json_value::kind::number: break;
    case json_value::kind::yes: text = "t"; break;
    case json_value::kind::no: text = "f"; break;
  }
  out_.text_column(text);
  return detail::has_its_shape(type_oid, text);
}

inline auto wal2json_decoder::row_change() -> std::error_code {
  const char action = doc_.action;
  if (!doc_.schema || !doc_.table || doc_.schema->empty() || doc_.table->empty() || detail::has_nul(*doc_.schema) ||
      detail::has_nul(*doc_.table)) {
    return detail::wal2json_malformed();
  }
  if ((action != 'D' && !doc_.has_columns) || (action == 'D' && !doc_.has_identity)) {
    return detail::wal2json_malformed();
  }
  if (!in_transaction_) return make_error_code(errc::protocol_violation);

  table_state& state = table_for(*doc_.schema, *doc_.table);
  bool describe = !state.described;
  if (!state.shape || !fits(*state.shape)) {
    relation_info shape = build_shape(state);
    if (shape.columns.size() > detail::max_columns || detail::has_duplicate_names(shape.columns)) {
      return detail::wal2json_malformed();
    }
    state.shape = std::move(shape);
    describe = true;
    // A column list no table can have (the same name twice, say) fits no shape either.
    if (!fits(*state.shape)) return detail::wal2json_malformed();
  }
  const relation_info& shape = *state.shape;
  if (describe) {
    out_.relation(shape);
    state.described = true;
  }

  // Which old values go with an UPDATE or DELETE: the whole row under REPLICA IDENTITY FULL (also
  // recognised without a catalog: the identity lists every column, not just the key), else the
  // key, which an UPDATE carries only when the key changed, as pgoutput does.
  const auto identity_value = [this](std::string_view name) -> const json_value* {
    const json_column* c = detail::find_named(doc_.identity, name);
    return c == nullptr ? nullptr : &c->value;
  };
  bool whole_row = false;
  if (doc_.has_identity) {
    whole_row = shape.identity == replica_identity::full;
    if (!whole_row) {
      bool all = true;
      bool any_non_key = false;
      for (const column_info& c : shape.columns) {
        all = all && identity_value(c.name) != nullptr;
        any_non_key = any_non_key || !c.key;
      }
      whole_row = all && any_non_key;
    }
  }
  char old_kind = 0;
  if (action == 'D') {
    old_kind = whole_row ? 'O' : 'K';
  } else if (action == 'U' && doc_.has_identity) {
    if (whole_row) {
      old_kind = 'O';
    } else {
      for (const json_column& k : doc_.identity) {
        const json_column* now = detail::find_named(doc_.columns, k.name);
        if (now == nullptr || now->value.type != k.value.type || now->value.text != k.value.text) old_kind = 'K';
      }
    }
  }

  // A value without its type's shape fails the row only once all of it is written: out_ is
  // discarded then, so nothing of the row is emitted.
  bool sound = true;
  out_.row_head(action, shape.oid);
  if (old_kind != 0) {
    out_.tuple_marker(old_kind);
    out_.tuple_head(shape.columns.size());
    for (const column_info& c : shape.columns) {
      const json_value* v = identity_value(c.name);
      if (v == nullptr) {
        out_.null_column();  // outside the key: sent as NULL, as in pgoutput's key tuple
      } else {
        sound = write_value(*v, c.type_oid) && sound;
      }
    }
  }
  if (action != 'D') {
    out_.tuple_marker('N');
    out_.tuple_head(shape.columns.size());
    std::size_t j = 0;
    for (const column_info& c : shape.columns) {
      if (j < doc_.columns.size() && doc_.columns[j].name == c.name) {
        sound = write_value(doc_.columns[j].value, c.type_oid) && sound;
        ++j;
      } else {
        out_.unchanged_column();  // left out by wal2json: an unchanged TOASTed value
      }
    }
  }
  if (!sound) return detail::wal2json_malformed();
  out_.end();
  return {};
}

inline auto wal2json_decoder::truncation() -> std::error_code {
  if (!doc_.schema || !doc_.table || doc_.schema->empty() || doc_.table->empty() || detail::has_nul(*doc_.schema) ||
      detail::has_nul(*doc_.table)) {
    return detail::wal2json_malformed();
  }
  if (!in_transaction_) return make_error_code(errc::protocol_violation);
  table_state& state = table_for(*doc_.schema, *doc_.table);
  if (!state.shape) {
    // Never seen and not in the catalog: all that is known is the name. The first change after
    // the truncate describes the table properly (the assembler reports that as a schema change).
    state.shape = build_shape(state);
    state.described = false;
  }
  if (!state.described) {
    out_.relation(*state.shape);
    state.described = true;
  }
  // wal2json does not say whether CASCADE or RESTART IDENTITY was given.
  out_.truncate(state.oid, 0);
  return {};
}

inline auto wal2json_decoder::message() -> std::error_code {
  if (!doc_.transactional || !doc_.prefix || !doc_.content || !doc_.lsn || detail::has_nul(*doc_.prefix)) {
    return detail::wal2json_malformed();
  }
  const auto at = parse_lsn(*doc_.lsn);
  if (!at) return detail::wal2json_malformed();
  if (*doc_.transactional && !in_transaction_) return make_error_code(errc::protocol_violation);
  out_.logical_message(*doc_.transactional, *at, *doc_.prefix, *doc_.content);
  return {};
}

}  // namespace replicant

#endif  // REPLICANT_DECODER_IMPL_WAL2JSON_HPP
