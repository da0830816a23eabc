// GoogleTest entry for the suite. SystemC's library owns main() and calls
// sc_main; ctest runs each test case in its own process because SystemC
// elaborates one design per process.
#include <cstdlib>

#include <gtest/gtest.h>
#include <systemc>

int sc_main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
