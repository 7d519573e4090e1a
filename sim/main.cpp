// faultmesh: the command-line simulator (sim/cli.cpp dispatches to the commands).
#include <cstdlib>
#include <systemc>

#include "sim/cli.h"

int sc_main(int argc, char** argv) { return fm::cli_main(argc, argv); }

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  return sc_core::sc_elab_and_sim(argc, argv);
}
