// Test main: GoogleTest drives; the SystemC library wants an sc_main, which the tests
// never call (each simulation runs in a forked child that calls sc_start itself).
#include <gtest/gtest.h>

#include <cstdlib>
#include <systemc>

int sc_main(int, char**) { return 0; }

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
