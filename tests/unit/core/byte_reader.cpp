// Copyright (c) 2026 The replicant authors
// SPDX-License-Identifier: MIT
#include <replicant/core/detail/byte_reader.hpp>

#include <boost/test/unit_test.hpp>

#include <support/wire/pgoutput_builder.hpp>

#include <array>
#include <cstdint>

BOOST_AUTO_TEST_SUITE(core_byte_reader_tests)

using replicant::detail::byte_reader;
namespace t = replicant::test;

BOOST_AUTO_TEST_SUITE(byte_reader_suite)

BOOST_AUTO_TEST_CASE(reads_big_endian_integers) {
  const auto data = t::hex("01 0203 04050607 08090a0b0c0d0e0f ff fffe fffffffd fffffffffffffffc");
  byte_reader in{data};
  BOOST_TEST(in.u8() == 0x01U);
  BOOST_TEST(in.u16() == 0x0203U);
  BOOST_TEST(in.u32() == 0x04050607U);
  BOOST_TEST(in.u64() == 0x08090A0B0C0D0E0FULL);
  BOOST_TEST(in.u8() == 0xFFU);
  BOOST_TEST(in.i16() == -2);
  BOOST_TEST(in.i32() == -3);
  BOOST_TEST(in.i64() == -4);
  BOOST_TEST(in.finished());
  BOOST_TEST(in.remaining() == 0U);
  BOOST_TEST(!in.error());
}

BOOST_AUTO_TEST_CASE(a_read_that_does_not_fit_fails_and_stays_failed) {
  const auto data = t::hex("01 02 03");
  for (int width : {2, 4, 8}) {
    byte_reader in{data};
    BOOST_TEST(in.u8() == 1U);
    const std::uint64_t v = width == 2 ? in.u16() : width == 4 ? std::uint64_t{in.u32()} : in.u64();
    BOOST_TEST_CONTEXT("width " << width) {
      if (width == 2) {
        BOOST_TEST(v == 0x0203U);  // exactly fits
        BOOST_TEST(in.finished());
        BOOST_TEST(in.u8() == 0U);
      } else {
        BOOST_TEST(v == 0U);
      }
      BOOST_TEST(!in.ok());
      BOOST_TEST(!in.finished());
      BOOST_TEST(in.remaining() == 0U);
      BOOST_TEST(in.error() == replicant::errc::decode_failure);
      BOOST_TEST(in.u8() == 0U);  // sticky: later reads fail too
      BOOST_TEST(in.bytes(0).empty());
      BOOST_TEST(!in.ok());
    }
  }
}

BOOST_AUTO_TEST_CASE(strings_must_end_inside_the_span) {
  const auto data = t::wire{}.str("ab").str("").raw("c").take();  // "ab\0" "\0" "c"
  byte_reader in{data};
  BOOST_TEST(in.string() == "ab");
  BOOST_TEST(in.string().empty());
  BOOST_TEST(in.ok());
  BOOST_TEST(in.remaining() == 1U);
  BOOST_TEST(in.string().empty());  // "c" has no NUL
  BOOST_TEST(!in.ok());

  const auto last = t::wire{}.str("xyz").take();
  byte_reader at_end{last};
  BOOST_TEST(at_end.string() == "xyz");  // NUL is the very last byte
  BOOST_TEST(at_end.finished());
  BOOST_TEST(at_end.string().empty());  // nothing left
  BOOST_TEST(!at_end.ok());

  byte_reader empty{std::span<const std::byte>{}};
  BOOST_TEST(empty.string().empty());
  BOOST_TEST(!empty.ok());
}

BOOST_AUTO_TEST_CASE(counted_bytes_must_fit_exactly) {
  const auto data = t::hex("0a 0b 0c 0d");
  {
    byte_reader in{data};
    in.skip(1);
    const auto b = in.bytes(3);
    BOOST_TEST(b.size() == 3U);
    BOOST_TEST(b.data() == data.data() + 1);
    BOOST_TEST(in.finished());
    BOOST_TEST(in.consumed_since(1).size() == 3U);
    BOOST_TEST(in.consumed_since(1).data() == data.data() + 1);
  }
  {
    byte_reader in{data};
    in.skip(1);
    BOOST_TEST(in.bytes(4).empty());  // one more than is left
    BOOST_TEST(!in.ok());
    BOOST_TEST(in.remaining() == 0U);
  }
  {
    byte_reader in{data};
    in.skip(5);
    BOOST_TEST(!in.ok());
  }
  {
    byte_reader in{data};
    BOOST_TEST(in.bytes(SIZE_MAX).empty());  // no overflow in the bound check
    BOOST_TEST(!in.ok());
  }
  {
    byte_reader in{data};
    BOOST_TEST(in.peek_u8() == 0x0AU);
    BOOST_TEST(in.position() == 0U);
    in.skip(2);
    BOOST_TEST(in.rest().size() == 2U);
    BOOST_TEST(in.finished());
    BOOST_TEST(in.peek_u8() == 0U);
    BOOST_TEST(in.ok());  // peeking at the end is not a failure
  }
}

BOOST_AUTO_TEST_CASE(fail_marks_the_reader_failed) {
  const auto data = t::hex("01 02");
  byte_reader in{data};
  in.fail();
  BOOST_TEST(!in.ok());
  BOOST_TEST(in.remaining() == 0U);
  BOOST_TEST(in.u8() == 0U);
}

BOOST_AUTO_TEST_CASE(writer_puts_big_endian_values) {
  std::array<std::byte, 17> out{};
  replicant::detail::byte_writer w{out};
  w.u8(0x72);
  w.u64(0x0102030405060708ULL);
  w.i64(-2);
  BOOST_TEST(w.position() == 17U);
  const auto expected = t::hex("72 0102030405060708 fffffffffffffffe");
  BOOST_TEST(std::equal(out.begin(), out.end(), expected.begin(), expected.end()));
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()  // core_byte_reader_tests
