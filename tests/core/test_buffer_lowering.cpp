#include <doctest/doctest.h>

#include <filesystem>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "helpers.hpp"
#include "io/json.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
namespace fs = std::filesystem;

namespace {

/// The example machines, plus small awkward ones.
std::vector<std::pair<std::string, Topology>> machines() {
  std::vector<std::pair<std::string, Topology>> all;
  const fs::path root = fs::path(PHASECHECK_SOURCE_DIR) / "examples";
  for (const auto& dir : fs::directory_iterator(root)) {
    const fs::path t = dir.path() / "topology.json";
    if (fs::exists(t))
      all.emplace_back(dir.path().filename().string(), io::read_topology_file(t.string()));
  }
  for (Rank p : {1u, 2u, 3u, 7u})
    all.emplace_back("fully-connected-" + std::to_string(p), FullyConnected(p, 1));
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return all;
}

/// The table without its local transfers (a program has none: a local copy is not a send).
std::vector<Phase> without_local(const std::vector<Phase>& phases) {
  std::vector<Phase> out;
  for (const Phase& p : phases) {
    Phase q(p.label());
    for (const Transfer& t : p.transfers())
      if (!t.local()) q.add(t.src, t.dst, p.blocks(t));
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace

TEST_CASE("buffers: every algorithm's program verifies wherever its table applies") {
  std::size_t programs = 0;
  for (const auto& [name, topology] : machines())
    for (const auto& a : schedules::algorithms())
      for (const char* collective : {"alltoall", "allgather"}) {
        Parameters params;
        params.set("collective", collective);
        ScheduleHeader header;
        try {
          header = schedules::make_header(a, topology, params);
          Schedule probe{header, {}};
          a.generate(header, collect_into(probe.phases));
        } catch (const InputError&) {
          continue;  // the algorithm does not apply here, or has no such collective
        }
        CAPTURE(name);
        CAPTURE(a.name);
        CAPTURE(collective);
        const Schedule program = schedules::generate_program(a, header);
        REQUIRE(program.header.buffers);
        const verify::Report r = verify::verify(program, topology, a.claims(program.header));
        CHECK(r.passed(CheckId::placement));
        CHECK(r.broken_claims(a.contention_free_on(program.header, topology)) == "");
        ++programs;
      }
  CHECK(programs > 100);
}

TEST_CASE("buffers: a lowered table's sends are the table, and relays reuse scratch") {
  for (const auto& a : schedules::algorithms()) {
    if (a.program) continue;  // written as a program: its table is derived from it
    for (Rank p : {2u, 5u, 8u}) {
      Schedule table;
      try {
        table = schedules::generate(a, FullyConnected(p, 1));
      } catch (const InputError&) {
        continue;
      }
      CAPTURE(a.name);
      CAPTURE(p);
      const Schedule program = lower_to_buffers(table);
      std::vector<Phase> sends;
      table_of(program, collect_into(sends));
      CHECK(sends == without_local(table.phases));
    }
  }
  // The ring alltoall relays blocks; a slot is reused once its block has moved on, so a rank needs
  // fewer slots than the relays passing through it.
  const Schedule table = schedules::generate(*schedules::find_algorithm("ring"), Ring(8));
  std::vector<std::size_t> relays(8, 0);
  for (const Phase& p : table.phases)
    for (const Transfer& t : p.transfers())
      for (const Block& b : p.blocks(t))
        if (t.dst != b.dest) ++relays[t.dst];
  const Schedule ring = lower_to_buffers(table);
  CHECK(ring.header.buffers->scratch >= 1);
  CHECK(ring.header.buffers->scratch < *std::max_element(relays.begin(), relays.end()));
}

TEST_CASE("buffers: a table that forwards a block its sender never got cannot be lowered") {
  Schedule table{testing::header(FullyConnected(3, 1)), {}};
  table.phases.push_back(testing::phase("bad", {{1, 2, {{0, 2}}}}));
  CHECK_THROWS_WITH_AS(
      lower_to_buffers(table),
      doctest::Contains("rank 1 forwards block [0,2] in phase 0 without holding it"), InputError);
}

TEST_CASE(
    "buffers: a table in place lowers to a program in place that the placement check proves") {
  std::size_t programs = 0, saved = 0;
  for (const auto& a : schedules::algorithms()) {
    if (a.program) continue;  // written as a program: it has no table to lower
    for (const char* collective : {"alltoall", "allgather"})
      for (Rank p : {1u, 2u, 3u, 5u, 8u}) {
        Parameters params;
        params.set("collective", collective);
        Schedule table;
        try {
          table = schedules::generate(a, FullyConnected(p, 1), params);
        } catch (const InputError&) {
          continue;
        }
        CAPTURE(a.name);
        CAPTURE(std::string(collective));
        CAPTURE(p);
        table.header.inplace = true;
        const Schedule program = lower_to_buffers(table);
        REQUIRE(program.header.buffers);
        CHECK(program.header.buffers->inplace);
        CHECK(program.header.buffers->input == 0);
        std::vector<Phase> sends;
        table_of(program, collect_into(sends));
        if (table.phases.empty())  // one rank: its program is one phase, with nothing to copy
          CHECK(sends == std::vector<Phase>{Phase("self copy")});
        else
          CHECK(sends == without_local(table.phases));
        for (const Phase& phase : program.phases)
          for (const BufferOp& op : phase.ops()) {
            CHECK(op.from.buffer != Buffer::input);
            saved += op.local();  // in place, a local copy is a save to scratch
          }
        const verify::Report r =
            verify::verify(program, table.header.topology, lowered_claims(a.claims(table.header)));
        CHECK(r.inplace);
        CHECK(r.passed(CheckId::placement));
        ++programs;
      }
  }
  CHECK(programs > 40);
  CHECK(saved > 0);
  // pairwise-xor swaps with one partner per phase: every message leaves in the phase its slot
  // is overwritten, so nothing is saved; shift receives from r - 1 before it sends to r - 1.
  const auto scratch = [](const char* name) {
    Schedule table = schedules::generate(*schedules::find_algorithm(name), FullyConnected(8, 1));
    table.header.inplace = true;
    return lower_to_buffers(table).header.buffers->scratch;
  };
  CHECK(scratch("pairwise-xor") == 0);
  CHECK(scratch("shift") > 0);
}
