#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/size_parse.h"

namespace ibsec {
namespace {

TEST(ParseSize, AcceptsBytesAndBinaryKilobytes) {
  EXPECT_EQ(parse_size_bytes("16KB", "size"), 16384u);
  EXPECT_EQ(parse_size_bytes("2 KiB", "size"), 2048u);
  EXPECT_EQ(parse_size_bytes("512B", "size"), 512u);
  EXPECT_EQ(parse_size_bytes("4096", "size"), 4096u);
  EXPECT_EQ(parse_size_bytes("1mb", "size"), 1048576u);
}

TEST(ParseSize, RejectsGarbageNamingTheField) {
  for (const char* bad : {"", "KB", "-4KB", "12 parsecs", "0KB"}) {
    try {
      parse_size_bytes(bad, "skc.size");
      FAIL() << "accepted '" << bad << "'";
    } catch (const ConfigError& e) {
      EXPECT_EQ(e.field(), "skc.size");
    }
  }
}

}  // namespace
}  // namespace ibsec
