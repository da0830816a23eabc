// What must be refused with a ConfigError: the message, checked to name the
// parameter at fault.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "core/errors.h"

namespace ibsec::testing {

// What `action` refuses with, after checking the error names `field`; a
// failure, and "", if it does not throw.
template <typename Action>
std::string config_refusal(Action&& action, const std::string& field) {
  try {
    action();
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.field(), field) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "not refused";
  return "";
}

}  // namespace ibsec::testing
