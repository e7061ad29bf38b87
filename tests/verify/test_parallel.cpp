// verify/parallel.hpp: the table observer (Verifier::observe_tables) through a ParallelVerifier.
#include <doctest/doctest.h>

#include <stdexcept>

#include "verify/parallel.hpp"

using namespace phasecheck;

namespace {

ScheduleHeader ring_header(Rank p) {
  ScheduleHeader h;
  h.algorithm = "two phases";
  h.topology = Ring(p);
  return h;
}

}  // namespace

TEST_CASE("ParallelVerifier: a table observer with one thread sees every phase, more refuse") {
  const ScheduleHeader header = ring_header(3);
  verify::ParallelVerifier one(header, header.topology, {}, 1);
  std::size_t seen = 0, transfers = 0;
  one.observe_tables([&](const Phase& p) {
    ++seen;
    transfers += p.size();
  });
  Phase a, b;
  a.add(0, 1, Block{0, 1});
  a.add(1, 2, Block{1, 2});
  b.add(2, 0, Block{2, 0});
  one.consume(a);
  one.consume(b);
  CHECK(seen == 2);
  CHECK(transfers == 3);
  CHECK(one.finish().counts.transfers == 3);

  verify::ParallelVerifier two(header, header.topology, {}, 2);
  CHECK_THROWS_AS(two.observe_tables([](const Phase&) {}), std::logic_error);
  two.finish();
}
