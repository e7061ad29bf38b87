// LAM/MPI's basic linear MPI_Alltoall, as described by Faraj & Yuan (Section 6): every rank posts
// all its receives and sends at once and waits for them all. As a phase table that is a single
// phase holding all p^2 messages (the local copies included), in the order the ranks post them.
// It is the baseline the contention checker must reject on any tree with more than one link on
// a path, and the witness it prints is the reason such a routine loses bandwidth.

#include "schedules/direct.hpp"

namespace phasecheck::schedules {

void linear(const DirectOptions& options, const PhaseSink& out) {
  const Rank p = options.ranks;
  Phase all("post everything");
  all.reserve(std::size_t{p} * p, std::size_t{p} * p);
  for (Rank i = 0; i < p; ++i)
    for (Rank j = 0; j < p; ++j) all.add(i, j, direct_block(options.collective, i, j));
  out(all);
}

}  // namespace phasecheck::schedules
