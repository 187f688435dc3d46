#include "core/ir/parse_number.h"

#include <gtest/gtest.h>

#include <string>

#include "core/ir/error.h"

namespace fuserlab::ir {
namespace {

std::string messageOf(std::string_view text, int64_t minimum, int64_t maximum) {
  try {
    parseInteger(text, "--segment", minimum, maximum);
  } catch (const UserError& error) {
    return error.what();
  }
  return "(no error)";
}

TEST(ParseNumberTest, ReadsIntegersInRange) {
  EXPECT_EQ(parseInteger("0", "x"), 0);
  EXPECT_EQ(parseInteger("-17", "x"), -17);
  EXPECT_EQ(parseInteger("9223372036854775807", "x"), INT64_MAX);
  EXPECT_EQ(parseInteger("-9223372036854775808", "x"), INT64_MIN);
  EXPECT_EQ(parseInteger("64", "--ranks", 1, 64), 64);
  EXPECT_EQ(parseUnsigned("18446744073709551615", "--seed"), UINT64_MAX);
  EXPECT_EQ(tryParseInteger("12", 0, 12), 12);
}

// Issue 43 item 6: a number past 64 bits is a user error naming the field,
// the text and the range, not std::stoll's out_of_range.
TEST(ParseNumberTest, TooLargeForSixtyFourBitsIsAUserErrorWithTheRange) {
  EXPECT_EQ(messageOf("99999999999999999999", 0, INT64_MAX),
            "--segment expects an integer from 0 to 9223372036854775807, found "
            "'99999999999999999999'");
  EXPECT_THROW(parseUnsigned("99999999999999999999", "--seed"), UserError);
  EXPECT_FALSE(tryParseInteger("99999999999999999999").has_value());
}

TEST(ParseNumberTest, OutOfRangeAndMalformedTextAreRefused) {
  EXPECT_EQ(messageOf("65", 1, 64), "--segment expects an integer from 1 to 64, found '65'");
  EXPECT_EQ(messageOf("-1", 0, 10), "--segment expects an integer from 0 to 10, found '-1'");
  // What std::sto* would have read a prefix of, or skipped, or wrapped.
  for (const char* text : {"", " 1", "1 ", "+1", "12abc", "0x10", "1e3", "1.0", "-", "--1"}) {
    SCOPED_TRACE(text);
    EXPECT_FALSE(tryParseInteger(text).has_value());
    EXPECT_THROW(parseInteger(text, "x"), UserError);
  }
  // std::stoull("-1") is 18446744073709551615.
  EXPECT_THROW(parseUnsigned("-1", "--seed"), UserError);
  EXPECT_THROW(parseUnsigned("11", "--seed", 10), UserError);
}

TEST(ParseNumberTest, LongTextIsQuotedByItsStart) {
  const std::string digits(100000, '9');
  const std::string message = messageOf(digits, 0, 10);
  EXPECT_LT(message.size(), 200u);
  EXPECT_NE(message.find("...' (100000 characters)"), std::string::npos) << message;
}

}  // namespace
}  // namespace fuserlab::ir
