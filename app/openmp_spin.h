#pragma once
// How long idle OpenMP threads spin before they sleep (see openmp_spin.cpp).

namespace ql::ui {

// Called first thing in main(): unless the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT, sets a
// short spin and runs this program again with it (libgomp reads its settings once, when it is
// loaded). Returns only when nothing needs doing or the re-run could not start.
void useShortOpenMpSpin(char *argv[]);

}  // namespace ql::ui
