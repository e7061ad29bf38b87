// The mutation analysis checked: the naive re-simulation tells valid from invalid on schedules and
// buffer programs made by hand, and every invalid mutant of the registry's schedules and programs
// is caught by the checkers, with no valid mutant rejected.

#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/networks.hpp"
#include "doctest_rapidcheck.hpp"
#include "generators.hpp"
#include "mutate.hpp"
#include "parameters_gen.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;

namespace {

using Ops = std::vector<BufferOp>;

BufferOp copy(Rank r, Slot from, Slot to, std::uint32_t count = 1) {
  return {r, r, from, to, count};
}
BufferOp send(Rank src, Rank dst, Slot from, Slot to, std::uint32_t count = 1) {
  return {src, dst, from, to, count};
}
Slot in(std::uint32_t i) { return {Buffer::input, i}; }
Slot out(std::uint32_t i) { return {Buffer::output, i}; }
Slot scratch(std::uint32_t i) { return {Buffer::scratch, i}; }

/// An alltoall program over 3 ranks with one chunk per message and `scratch_slots` scratch
/// slots, on 2 ports per rank.
Schedule program(std::vector<Ops> phases, std::uint32_t scratch_slots = 2) {
  Schedule s;
  s.header.algorithm = "by-hand";
  s.header.topology = FullyConnected(3, 2);
  BufferLayout layout = natural_layout(Collective::alltoall, 3, 1);
  layout.scratch = scratch_slots;
  s.header.buffers = layout;
  for (std::size_t t = 0; t < phases.size(); ++t) {
    Phase phase("phase " + std::to_string(t));
    for (const BufferOp& op : phases[t]) phase.add(op);
    s.phases.push_back(std::move(phase));
  }
  return s;
}

/// A valid program: every rank copies its own chunk into place; (r, r+1) and (r+1, r) go
/// directly, except (0, 2), which goes through rank 1's scratch.
std::vector<Ops> valid_ops() {
  return {
      {copy(0, in(0), out(0)), copy(1, in(1), out(1)), copy(2, in(2), out(2)),
       send(0, 1, in(1), out(0)), send(1, 2, in(2), out(1)), send(2, 0, in(0), out(2)),
       send(0, 1, in(2), scratch(0))},
      {send(1, 2, scratch(0), out(0)), send(2, 1, in(1), out(2)), send(1, 0, in(0), out(1))},
  };
}

/// The valid program with one op of phase `t` replaced (or, for index == size, one added).
Schedule edited(std::size_t t, std::size_t index, BufferOp op) {
  auto ops = valid_ops();
  if (index == ops[t].size())
    ops[t].push_back(op);
  else
    ops[t][index] = op;
  return program(ops);
}

Schedule without(std::size_t t, std::size_t index) {
  auto ops = valid_ops();
  ops[t].erase(ops[t].begin() + static_cast<std::ptrdiff_t>(index));
  return program(ops);
}

struct Case {
  const char* name;
  Schedule program;
  bool valid;
  const char* problem;  ///< the naive method's first finding, exactly
};

}  // namespace

TEST_CASE("mutate: the naive re-simulation itself tells valid from invalid") {
  const auto& shift = *schedules::find_algorithm("shift");
  const Schedule s = schedules::generate(shift, Ring(5));
  const Topology ring = Ring(5);
  auto verdict = properties::naive_verdict(s, ring);
  CHECK(verdict.delivered);
  CHECK_FALSE(verdict.contention_free);  // shift on a ring: offsets 2 and 3 share links
  const Topology ports = FullyConnected(5, 1);
  CHECK(properties::naive_verdict(s, ports).contention_free);
  // Links with capacity: 5 gpus of 4 ports, each pair linked once, take a whole shift at once;
  // with single ports, not.
  const Topology xgmi5 = xgmi(5);
  CHECK(properties::naive_verdict(s, xgmi5).contention_free);
  Schedule all_at_once = s;
  for (std::size_t t = 1; t < s.phases.size(); ++t)
    for (const Transfer& x : s.phases[t].transfers())
      all_at_once.phases[0].add(x.src, x.dst, Block{x.src, x.dst});
  all_at_once.phases.resize(1);
  CHECK(properties::naive_verdict(all_at_once, xgmi5).contention_free);
  const Graph& g = std::get<Graph>(xgmi5);
  const Topology single_ports = Graph(g.routers(), g.links(), g.hosts());
  CHECK_FALSE(properties::naive_verdict(all_at_once, single_ports).contention_free);
  Schedule dup = s;
  dup.phases[1].add(0, 1, Block{0, 1});  // [0,1] arrives twice
  CHECK_FALSE(properties::naive_verdict(dup, ports).delivered);
  Schedule early = s;
  early.phases[0].add(1, 2, Block{0, 2});  // forwarded before 1 holds it
  verdict = properties::naive_verdict(early, ports);
  CHECK_FALSE(verdict.delivered);
  CHECK(verdict.problem == "phase 0: rank 1 sends [0,2] without holding it");
}

TEST_CASE("mutate: the naive simulation of buffer programs tells valid from invalid") {
  const Case cases[] = {
      {"valid", program(valid_ops()), true, ""},
      // The six placement faults, by hand.
      {"swap two destination slots: (0,1) and (0,2) land in each other's slots on rank 1",
       [] {
         auto ops = valid_ops();
         std::swap(ops[0][3].to, ops[0][6].to);
         return program(ops);
       }(),
       false, "rank 1 output[0] holds (0,2,0) at the end, not (0,1,0)"},
      {"shift a rotation by one: rank 0's self copy one slot on",
       edited(0, 0, copy(0, in(0), out(1))), false,
       "rank 0 output[0] holds nothing at the end, not (0,0,0)"},
      {"drop the self copy of rank 2", without(0, 2), false,
       "rank 2 output[2] holds nothing at the end, not (2,2,0)"},
      {"redirect a receive to scratch", edited(0, 4, send(1, 2, in(2), scratch(1))), false,
       "rank 2 output[1] holds nothing at the end, not (1,2,0)"},
      {"read the wrong slot", edited(0, 5, send(2, 0, in(1), out(2))), false,
       "rank 0 output[2] holds (2,1,0) at the end, not (2,0,0)"},
      {"double write in a phase", edited(1, 3, copy(0, in(1), out(1))), false,
       "phase 1: rank 0 output[1] is written twice"},
      // The other faults of the execution model.
      {"read beyond a buffer", edited(0, 3, send(0, 1, in(3), out(0))), false,
       "phase 0, op 3 reads beyond: rank 0 input[3]"},
      {"write beyond a buffer", edited(0, 3, send(0, 1, in(1), out(3))), false,
       "phase 0, op 3 writes beyond: rank 1 output[3]"},
      {"write the input", edited(0, 0, copy(0, in(0), in(1))), false,
       "phase 0, op 0 writes the input: rank 0 input[1]"},
      {"read an empty slot: forwarded in the phase it arrives",
       edited(0, 7, send(1, 2, scratch(0), scratch(1))), false,
       "phase 0, op 7 reads an empty slot: rank 1 scratch[0]"},
      {"a chunk arrives twice where it is needed", edited(1, 3, send(0, 1, in(1), scratch(1))),
       false, "phase 1, op 3: (0,1,0) arrives again at rank 1"},
      // Mutants that are in fact valid.
      {"rank 1's own chunk sent on to rank 0's scratch",
       edited(1, 3, send(1, 0, out(1), scratch(1))), true, ""},
      {"a redundant copy into scratch", edited(1, 3, copy(0, in(2), scratch(0))), true, ""},
      {"swap two slots that hold the same chunk",
       [] {
         auto ops = valid_ops();
         ops[1].push_back(copy(2, in(2), scratch(0)));
         ops[1].push_back(copy(2, in(2), scratch(1)));
         std::swap(ops[1][3].to, ops[1][4].to);
         return program(ops);
       }(),
       true, ""},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const auto naive = properties::naive_verdict(c.program, c.program.header.topology);
    CHECK(naive.valid(true) == c.valid);
    CHECK(naive.problem == c.problem);
    // The checkers agree on every hand-made case.
    const verify::Report r = verify::verify(c.program, c.program.header.topology);
    CHECK((r.passed(CheckId::placement) && r.passed(CheckId::delivery) && r.passed(CheckId::contention)) == c.valid);
  }
}

TEST_CASE("mutate: the own chunk sent back to its origin is a duplicate delivery") {
  // Rank 1 returns (0,0) to rank 0, which has held it from the start: both methods object.
  Schedule s = edited(1, 3, send(1, 0, scratch(1), scratch(1)));
  s.phases[0].add(send(0, 1, in(0), scratch(1)));
  const auto naive = properties::naive_verdict(s, s.header.topology);
  CHECK(naive.problem == "phase 1, op 3: (0,0,0) arrives again at rank 0");
  CHECK_FALSE(verify::verify(s, s.header.topology).passed(CheckId::delivery));
}

TEST_CASE("mutate: every invalid mutant of the shipped kinds of schedule is caught") {
  for (const char* name : {"faraj-yuan", "hypercube-exchange", "bruck-index", "ring"}) {
    const auto& a = *schedules::find_algorithm(name);
    const Topology t =
        std::string(name) == "faraj-yuan"
            ? Topology(
                  Tree({"a", "b", "c", "d", "e"}, {"s", "t"},
                       {{"a", "s"}, {"b", "s"}, {"c", "t"}, {"d", "t"}, {"e", "t"}, {"s", "t"}}))
            : Topology(FullyConnected(8, 1));
    const auto report = properties::mutate(schedules::generate(a, t), t, 40, 7);
    INFO(name);
    CHECK_FALSE(report.program);
    CHECK(report.perfect());
    std::uint64_t invalid = 0;
    for (const auto& c : report.classes) invalid += c.invalid;
    CHECK(invalid > 100);  // the faults are real
  }
}

TEST_CASE(
    "mutate: every placement fault in the programs of factor, ring and the Brucks is caught") {
  const char* placement[] = {"swap two destination slots", "shift a rotation by one",
                             "drop the self copy",         "redirect a receive to scratch",
                             "read the wrong slot",        "double write in a phase"};
  for (const char* name : {"factor", "ring", "bruck-index", "bruck-concat"})
    for (Rank p : {3u, 4u, 5u, 8u}) {
      const auto& a = *schedules::find_algorithm(name);
      const Topology t = FullyConnected(p, 1);
      const Schedule s = schedules::generate_program(a, schedules::make_header(a, t, {}));
      const auto report = properties::mutate(s, t, 30, p);
      INFO(name << " on " << p << " ranks");
      CHECK(report.program);
      CHECK(report.perfect());
      REQUIRE(report.classes.size() == 12);
      for (std::size_t i = 0; i < 6; ++i) {
        const auto& c = report.classes[i];
        INFO(c.name << ": " << c.example);
        CHECK(c.name == placement[i]);
        CHECK(c.missed == 0);
        CHECK(c.over_strict == 0);
        CHECK(c.invalid > 0);
        CHECK(c.caught == c.invalid);
      }
    }
}

TEST_CASE("mutate: no invalid mutant of any registered algorithm's program is missed") {
  const std::vector<Topology> machines = {
      FullyConnected(2, 1),  // ompi-two-procs runs on two ranks only
      FullyConnected(3, 1),
      FullyConnected(4, 2),
      FullyConnected(5, 1),
      FullyConnected(8, 1),
      Ring(6),
      Hypercube(3),
      Cluster({2, 3}),
      Tree({"a", "b", "c", "d", "e"}, {"s", "t"},
           {{"a", "s"}, {"b", "s"}, {"c", "t"}, {"d", "t"}, {"e", "t"}, {"s", "t"}})};
  // The sweep must do its work: a pair that throws for another reason than not fitting, or a
  // mutate that plants nothing, would otherwise pass by default.
  std::size_t runs = 0, algorithms_run = 0;
  std::uint64_t planted = 0, invalid = 0;
  std::size_t programs = 0;  // the rows with a buffer program: an alltoallv's is not modelled
  for (const schedules::Algorithm& a : schedules::algorithms()) {
    if (schedules::is_alltoallv(a)) continue;
    ++programs;
    const std::size_t runs_before = runs;
    // A row made for one machine (Algorithm::only_machine) is mutated there.
    const std::vector<Topology> own =
        a.only_machine ? std::vector<Topology>{a.only_machine()} : machines;
    for (const Topology& t : own) {
      Schedule s;
      try {
        s = schedules::generate_program(a, schedules::make_header(a, t, {}));
      } catch (const InputError&) {
        continue;  // the algorithm does not fit this machine
      }
      const auto report = properties::mutate(s, t, 20, 11);
      ++runs;
      INFO(a.name << " on " << describe(t));
      CHECK(report.program);
      for (const auto& c : report.classes) {
        INFO(c.name << ": " << c.example);
        CHECK(c.missed == 0);
        CHECK(c.over_strict == 0);
        planted += c.mutants;
        invalid += c.invalid;
      }
    }
    algorithms_run += runs > runs_before;
  }
  // Every registered algorithm with a program fits at least one of the machines.
  CHECK(algorithms_run == programs);
  CHECK(programs + 3 <= schedules::algorithms().size());
  CHECK(runs >= algorithms_run);
  CHECK(planted > 0);
  CHECK(invalid > 0);
}

TEST_CASE("mutate: no invalid mutant of a program is missed on random machines and parameters") {
  properties::check("every mutant of a random program is judged alike", [] {
    const auto& a = *rc::gen::elementOf(std::vector<const schedules::Algorithm*>{[] {
      std::vector<const schedules::Algorithm*> all;
      for (const auto& row : schedules::algorithms())
        if (!schedules::is_alltoallv(row)) all.push_back(&row);  // (no buffer program)
      return all;
    }()});
    const Topology t = *rc::gen::resize(20, properties::topology());
    RC_PRE(ranks(t) <= 64u);
    const Parameters params = properties::random_parameters(*a, ranks(t));
    Schedule s;
    try {
      s = schedules::generate_program(*a, schedules::make_header(*a, t, params));
    } catch (const InputError& e) {
      RC_DISCARD(e.what());
    }
    // An in-place alltoall on one rank has nothing to do: no op to mutate.
    RC_PRE(std::any_of(s.phases.begin(), s.phases.end(),
                       [](const Phase& phase) { return !phase.ops().empty(); }));
    const auto report = properties::mutate(s, t, 4, *rc::gen::inRange<std::uint64_t>(0, 1000));
    for (const auto& c : report.classes) {
      RC_ASSERT(c.missed == 0u);
      RC_ASSERT(c.over_strict == 0u);
      RC_ASSERT(c.example == std::string());  // printed on a failure
    }
  });
}

TEST_CASE("mutate: the same seed plants the same faults") {
  const auto& a = *schedules::find_algorithm("bruck-index");
  const Topology t = FullyConnected(5, 1);
  const Schedule s = schedules::generate_program(a, schedules::make_header(a, t, {}));
  CHECK(properties::mutate(s, t, 25, 3) == properties::mutate(s, t, 25, 3));
}

TEST_CASE("mutate: an imported program is judged without the claims of the algorithm it names") {
  // An MSCCL program named after a registered algorithm: the verifier judges it on its own
  // (schedules::claims_for), so no valid mutant may be counted as rejected by the claims, while
  // the same program as generated has such mutants (the claims did run there).
  const auto& a = *schedules::find_algorithm("factor");
  const Topology t = FullyConnected(4, 2);
  Schedule s = schedules::generate_program(a, schedules::make_header(a, t, {}));
  const auto claims_only = [&] {
    std::uint64_t n = 0, mutants = 0;
    for (const auto& c : properties::mutate(s, t, 30, 3).classes) {
      n += c.claims_only;
      mutants += c.mutants;
    }
    CHECK(mutants > 0);
    return n;
  };
  CHECK(claims_only() > 0);
  Imported imported{"msccl", "by hand", {}, {}};
  for (const Phase& phase : s.phases) imported.ops.emplace_back(phase.ops().size());
  s.header.imported = imported;
  CHECK(claims_only() == 0);
}
