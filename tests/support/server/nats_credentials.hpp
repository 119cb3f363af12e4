// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#ifndef REPLICANT_TESTS_SUPPORT_SERVER_NATS_CREDENTIALS_HPP
#define REPLICANT_TESTS_SUPPORT_SERVER_NATS_CREDENTIALS_HPP

/// @file
/// The secrets of the live NATS tests, made on the spot with the `openssl` program and nothing
/// else (no `nsc`, no network): NKeys (an Ed25519 key written in the NKey encoding: base32 of a
/// prefix byte, the key and a CRC-16), the JWTs of a server in operator mode (an operator's,
/// self-signed; an account's, signed by the operator; a user's, signed by the account), and the
/// credentials file that carries a user's JWT and seed, as `nsc` writes it.
///
/// The JWTs follow the NATS JWT v2 format: a header `{"typ":"JWT","alg":"ed25519-nkey"}`, claims
/// `jti`, `iat`, `iss`, `sub`, `name` and `nats` (whose `type` says operator, account or user, and
/// `version` is 2), each part in base64url without padding, and an Ed25519 signature by the
/// issuer's key over `header.claims`. The server checks the signature, the issuer's kind and, for an
/// account, that the operator it trusts issued it; `jti` is only an identifier to it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace replicant::test {

namespace nats_detail {

// NKeys' checksum: CRC-16/XMODEM (polynomial 0x1021, initial 0), stored little-endian.
inline auto crc16(const std::vector<unsigned char>& bytes) -> std::uint16_t {
  std::uint16_t crc = 0;
  for (const unsigned char b : bytes) {
    crc = static_cast<std::uint16_t>(crc ^ (static_cast<unsigned>(b) << 8U));
    for (int i = 0; i < 8; ++i) {
      const unsigned c = crc;
      crc = static_cast<std::uint16_t>((c & 0x8000U) != 0 ? (c << 1U) ^ 0x1021U : c << 1U);
    }
  }
  return crc;
}

// @p raw with its checksum, in RFC 4648 base32 without padding: an NKey's text.
inline auto nkey_text(std::vector<unsigned char> raw) -> std::string {
  const auto crc = crc16(raw);
  raw.push_back(static_cast<unsigned char>(crc & 0xFFU));
  raw.push_back(static_cast<unsigned char>(crc >> 8U));
  constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (const unsigned char b : raw) {
    buffer = (buffer << 8U) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(buffer >> static_cast<unsigned>(bits - 5)) & 31U];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(buffer << static_cast<unsigned>(5 - bits)) & 31U];
  return out;
}

// Every byte of file @p path.
inline auto file_bytes(const std::filesystem::path& path) -> std::vector<unsigned char> {
  std::ifstream in{path, std::ios::binary};
  return {std::istreambuf_iterator<char>{in}, std::istreambuf_iterator<char>{}};
}

// The last @p n bytes of file @p path.
inline auto file_tail(const std::filesystem::path& path, std::size_t n) -> std::vector<unsigned char> {
  const auto all = file_bytes(path);
  if (all.size() < n) throw std::runtime_error{"nats_credentials: " + path.string() + " is too short"};
  return {all.end() - static_cast<std::ptrdiff_t>(n), all.end()};
}

// @p bytes in RFC 4648 base64url without padding, as JWTs write their parts.
inline auto base64url(std::string_view bytes) -> std::string {
  constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (const char c : bytes) {
    buffer = (buffer << 8U) | static_cast<unsigned char>(c);
    bits += 8;
    while (bits >= 6) {
      out += alphabet[(buffer >> static_cast<unsigned>(bits - 6)) & 63U];
      bits -= 6;
    }
  }
  if (bits > 0) out += alphabet[(buffer << static_cast<unsigned>(6 - bits)) & 63U];
  return out;
}

}  // namespace nats_detail

/// What an NKey identifies; the value is the prefix byte its public key starts with (base32 `O`,
/// `A`, `U`).
enum class nkey_kind : unsigned char {
  operator_key = 14U << 3U,
  account = 0U,
  user = 20U << 3U,
};

/// An NKey: its public key (`O...`, `A...`, `U...`), the file of its seed (`S` and the kind's
/// letter), and the private key in DER, which signs (sign_with()).
struct nats_nkey {
  /// The public key, as the server's configuration, `--nats-nkey` and a JWT's `iss`/`sub` name it.
  std::string public_key;
  /// The file holding the seed (one line), as `--nats-nkey-seed` names it.
  std::filesystem::path seed_file;
  /// The Ed25519 private key (PKCS#8 DER), which `openssl pkeyutl` signs with.
  std::filesystem::path private_key;
};

/// A user's NKey, as a cluster of NKey users knows it.
using nats_user_nkey = nats_nkey;

/**
 * Makes an NKey of kind @p kind named @p name in @p dir with the `openssl` program: an Ed25519 key
 * whose 32-byte seed and public key are written in the NKey encoding (the seed's prefix bytes say
 * "seed" and the kind, the public key's the kind). @throws std::runtime_error when openssl fails.
 */
[[nodiscard]] inline auto make_nkey(const std::filesystem::path& dir, const std::string& name,
                                    nkey_kind kind = nkey_kind::user) -> nats_nkey {
  const auto key = dir / (name + ".der");
  const auto pub = dir / (name + ".pub.der");
  const std::string command = "openssl genpkey -algorithm ed25519 -outform DER -out '" + key.string() +
                              "' && openssl pkey -inform DER -in '" + key.string() + "' -pubout -outform DER -out '" +
                              pub.string() + "'";
  if (std::system(command.c_str()) != 0) throw std::runtime_error{"nats_credentials: openssl could not make an NKey"};
  // The DER forms end in the raw 32 bytes: PKCS#8's private key, and the public key's bit string.
  constexpr unsigned seed_prefix = 18U << 3U;
  const auto prefix = static_cast<unsigned>(kind);
  std::vector<unsigned char> seed{static_cast<unsigned char>(seed_prefix | (prefix >> 5U)),
                                  static_cast<unsigned char>((prefix & 31U) << 3U)};
  const auto raw_seed = nats_detail::file_tail(key, 32);
  seed.insert(seed.end(), raw_seed.begin(), raw_seed.end());
  std::vector<unsigned char> public_key{static_cast<unsigned char>(prefix)};
  const auto raw_public = nats_detail::file_tail(pub, 32);
  public_key.insert(public_key.end(), raw_public.begin(), raw_public.end());
  nats_nkey out{nats_detail::nkey_text(std::move(public_key)), dir / (name + ".nk"), key};
  std::ofstream{out.seed_file} << nats_detail::nkey_text(std::move(seed)) << "\n";
  std::filesystem::remove(pub);
  return out;
}

/// Makes a user's NKey named @p name in @p dir (make_nkey()). @throws std::runtime_error when openssl fails.
[[nodiscard]] inline auto make_user_nkey(const std::filesystem::path& dir, const std::string& name) -> nats_nkey {
  return make_nkey(dir, name, nkey_kind::user);
}

/// The seed of @p key, as its file holds it (the secret a test looks for in what a program printed).
[[nodiscard]] inline auto seed_of(const nats_nkey& key) -> std::string {
  std::ifstream in{key.seed_file};
  std::string line;
  std::getline(in, line);
  return line;
}

/// The Ed25519 signature of @p data by @p key, through `openssl pkeyutl` (64 raw bytes).
/// @throws std::runtime_error when openssl fails.
[[nodiscard]] inline auto sign_with(const nats_nkey& key, std::string_view data) -> std::string {
  const auto message = std::filesystem::path{key.private_key}.replace_extension(".msg");
  const auto signature = std::filesystem::path{key.private_key}.replace_extension(".sig");
  std::ofstream{message, std::ios::binary} << data;
  const std::string command = "openssl pkeyutl -sign -rawin -keyform DER -inkey '" + key.private_key.string() +
                              "' -in '" + message.string() + "' -out '" + signature.string() + "'";
  if (std::system(command.c_str()) != 0) throw std::runtime_error{"nats_credentials: openssl could not sign"};
  const auto bytes = nats_detail::file_bytes(signature);
  std::filesystem::remove(message);
  std::filesystem::remove(signature);
  if (bytes.size() != 64) throw std::runtime_error{"nats_credentials: openssl made no Ed25519 signature"};
  return {bytes.begin(), bytes.end()};
}

/**
 * A NATS JWT v2 issued by @p issuer about @p subject (a public key), named @p name, whose `nats`
 * claim is the JSON object @p nats (which must say its `type` and `"version":2`).
 * @throws std::runtime_error when openssl fails.
 */
[[nodiscard]] inline auto issue_jwt(const nats_nkey& issuer, const std::string& subject, const std::string& name,
                                    const std::string& nats) -> std::string {
  const auto now =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch());
  // The identifier only has to be unique: nsc hashes the claims, the server does not look.
  static int issued = 0;
  const std::string jti = "JTI" + std::to_string(now.count()) + "X" + std::to_string(++issued) + subject.substr(1, 16);
  const std::string header = R"({"typ":"JWT","alg":"ed25519-nkey"})";
  const std::string claims = R"({"jti":")" + jti + R"(","iat":)" + std::to_string(now.count()) + R"(,"iss":")" +
                             issuer.public_key + R"(","name":")" + name + R"(","sub":")" + subject + R"(","nats":)" +
                             nats + "}";
  const std::string signed_part = nats_detail::base64url(header) + "." + nats_detail::base64url(claims);
  return signed_part + "." + nats_detail::base64url(sign_with(issuer, signed_part));
}

/// The `nats` claim of an operator's JWT.
[[nodiscard]] inline auto operator_claim() -> std::string { return R"({"type":"operator","version":2})"; }

/// The `nats` claim of an account's JWT: no limit, and JetStream enabled (unlimited memory and
/// disk: a limit of 0, the default, disables it) when @p jetstream.
[[nodiscard]] inline auto account_claim(bool jetstream) -> std::string {
  std::string limits =
      R"("subs":-1,"data":-1,"payload":-1,"imports":-1,"exports":-1,"wildcards":true,"conn":-1,"leaf":-1)";
  if (jetstream) limits += R"(,"mem_storage":-1,"disk_storage":-1,"streams":-1,"consumer":-1)";
  return R"({"limits":{)" + limits + R"(},"default_permissions":{"pub":{},"sub":{}},"type":"account","version":2})";
}

/// The `nats` claim of a user's JWT: no limit, every subject allowed.
[[nodiscard]] inline auto user_claim() -> std::string {
  return R"({"pub":{},"sub":{},"subs":-1,"data":-1,"payload":-1,"type":"user","version":2})";
}

/// A credentials file, as `nsc` writes one and `--nats-creds` names it, and the two secrets in it.
struct nats_credentials_file {
  std::filesystem::path path;
  /// The user's JWT.
  std::string jwt;
  /// The user's NKey seed, which signs the server's nonce.
  std::string seed;
};

/// Writes the credentials file @p path: the user's @p jwt and the @p seed of its NKey.
/// @throws std::runtime_error when it cannot be written.
[[nodiscard]] inline auto write_credentials(const std::filesystem::path& path, const std::string& jwt,
                                            const std::string& seed) -> nats_credentials_file {
  std::ofstream out{path};
  out << "-----BEGIN NATS USER JWT-----\n"
      << jwt << "\n------END NATS USER JWT------\n\n"
      << "************************* IMPORTANT *************************\n"
      << "NKEY Seed printed below can be used to sign and prove identity.\n"
      << "NKEYs are sensitive and should be treated as secrets.\n\n"
      << "-----BEGIN USER NKEY SEED-----\n"
      << seed << "\n------END USER NKEY SEED------\n\n"
      << "*************************************************************\n";
  if (!out) throw std::runtime_error{"nats_credentials: could not write " + path.string()};
  return {path, jwt, seed};
}

}  // namespace replicant::test

#endif  // REPLICANT_TESTS_SUPPORT_SERVER_NATS_CREDENTIALS_HPP
