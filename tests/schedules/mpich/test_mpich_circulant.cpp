// mpich-circulant against MPIR_Allgather_intra_circ_graph and circ_graph.c: the broadcast schedule
// of circ_graph.c's own worked example (p = 17, Skip = 1, 2, 3, 5, 9, 17) run for every root;
// verified with its claims (q + 1 phases, C2 = p - 1); a forwarded block sent one rank off is
// caught.

#include <set>

#include "core/error.hpp"
#include "mpich_support.hpp"

using namespace phasecheck;
using namespace phasecheck::mpich_test;

TEST_CASE("mpich-circulant: p = 17 forwards root 0's block as circ_graph.c's S table says") {
  const Schedule t = table_of_row("mpich-circulant", 17);
  REQUIRE(t.phases.size() == 1 + 5);
  // The ranks r with S(r)[k] >= 0 in the comment's table (root 0), and Skip[k].
  const std::vector<std::set<Rank>> senders = {
      {0}, {0}, {0, 1}, {0, 1, 2, 3}, {0, 1, 2, 3, 4, 5, 6, 7}};
  const Rank skip[] = {1, 2, 3, 5, 9};
  for (std::size_t k = 0; k < senders.size(); ++k) {
    CAPTURE(k);
    std::set<Rank> forwarding_root0;
    for (const Transfer& tr : t.phases[k + 1].transfers()) {
      CHECK(tr.dst == (tr.src + skip[k]) % 17);
      for (const Block& b : t.phases[k + 1].blocks(tr))
        if (b.origin == 0) forwarding_root0.insert(tr.src);
    }
    CHECK(forwarding_root0 == senders[k]);
  }
}

TEST_CASE("mpich-circulant: verifies with its claims (q + 1 phases, C2 = p - 1)") {
  for (Rank p = 1; p <= 70; ++p) check_row("mpich-circulant", p);
  const verify::Report r = verify_with_claims(program_of("mpich-circulant", 100));
  CHECK(r.counts.c2 == 99);
  CHECK(r.counts.phases == 1 + 7);
}

TEST_CASE("mpich-circulant: an alltoall is refused (MPICH's circ_graph is an allgather here)") {
  CHECK_THROWS_AS(header_of("mpich-circulant", 4, parameters({{"collective", "alltoall"}})),
                  InputError);
}

TEST_CASE("mpich-circulant mutant: at p = 17 rank 0 sends one block of round 2 one rank off") {
  const Schedule s = program_of("mpich-circulant", 17);
  check_caught(mutant(s, 3, 0, [](BufferOp& op) { op.dst = (op.dst + 1) % 17; }));
}
