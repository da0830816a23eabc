// "Did you mean": the distance counts a typist's slips one edit each, and a
// suggestion is made only when the name given is near a known one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/errors.h"
#include "core/registry.h"
#include "core/spelling.h"

namespace ibsec {
namespace {

TEST(Spelling, EditDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps) {
  EXPECT_EQ(edit_distance("security", "security"), 0U);
  EXPECT_EQ(edit_distance("secruity", "security"), 1U);  // two neighbours swapped
  EXPECT_EQ(edit_distance("gangg", "gang"), 1U);
  EXPECT_EQ(edit_distance("lur", "lru"), 1U);
  EXPECT_EQ(edit_distance("fattree", "fat-tree"), 1U);
  EXPECT_EQ(edit_distance("", "abc"), 3U);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3U);  // the textbook Levenshtein example
}

TEST(Spelling, SuggestsOnlyANearName) {
  const std::vector<std::string> keys{"nic.security", "nic.skc.policy", "network.topology"};
  EXPECT_EQ(closest_name("nic.secruity", keys), "nic.security");
  EXPECT_EQ(closest_name("network.topolgy", keys), "network.topology");
  EXPECT_EQ(closest_name("bananas", keys), std::nullopt);
  EXPECT_EQ(closest_name("x", std::vector<std::string>{"single-switch", "fat-tree"}), std::nullopt);
  EXPECT_EQ(did_you_mean("nic.secruity", keys), "did you mean 'nic.security'? ");
  EXPECT_EQ(did_you_mean("bananas", keys), "");
}

struct Colour {
  std::string name;
};
const bool kRed = Registry<Colour>::add({"red"});
const bool kGreen = Registry<Colour>::add({"green"});

TEST(Spelling, ARegistryErrorSuggestsTheNearestName) {
  ASSERT_TRUE(kRed && kGreen);
  try {
    Registry<Colour>::get("gren", "colour", "colour");
    FAIL() << "an unknown name was accepted";
  } catch (const ConfigError& error) {
    EXPECT_STREQ(error.what(), "invalid 'colour': unknown colour 'gren'; did you mean 'green'? known: green, red");
  }
}

}  // namespace
}  // namespace ibsec
