// deploy/v_pattern.hpp: which alltoallv schedules deploy serves MPI_Alltoallv with (the
// count-independent patterns), the plans it makes of them, and the refusals of the others.
#include "deploy/v_pattern.hpp"

#include <doctest/doctest.h>

#include "core/error.hpp"
#include "deploy/c_source.hpp"
#include "deploy/plan.hpp"
#include "schedules/registry.hpp"

namespace phasecheck::deploy {
namespace {

using programs::Op;

constexpr const char* kDirect[] = {"linear-v", "pairwise-v", "scattered-v"};

/// counts[s][d] = 1 + (s * a + d * b) % 7 (never 0), `diagonal` on the diagonal.
Traffic skewed(Rank p, Rank a, Rank b, std::uint64_t diagonal) {
  Traffic t = zero_traffic(p, 4);
  for (Rank s = 0; s < p; ++s)
    for (Rank d = 0; d < p; ++d)
      t.counts[std::size_t{s} * p + d] = s == d ? diagonal : 1 + (s * a + d * b) % 7;
  return t;
}

Schedule generated(std::string_view name, const Traffic& traffic) {
  const Rank p = traffic.ranks;
  Parameters params;
  if (name == "scattered-v") params.set("bblock", "2");
  const Rank ports = name == "linear-v" ? std::max<Rank>(1, p - 1) : name == "pairwise-v" ? 1 : 2;
  return schedules::generate(schedules::require_algorithm(name), FullyConnected(p, ports), params,
                             SharedTraffic(traffic));
}

/// An alltoallv header on a fully connected machine, of an unregistered algorithm (no claims).
ScheduleHeader v_header(const Traffic& traffic) {
  ScheduleHeader h;
  h.algorithm = "hand-made-v";
  h.topology = FullyConnected(traffic.ranks, traffic.ranks - 1);
  h.traffic = SharedTraffic(traffic);
  return h;
}

TEST_CASE(
    "check: linear-v, pairwise-v, scattered-v deploy their pattern, the same for any "
    "non-zero matrix") {
  int planned = 0;
  for (const char* name : kDirect)
    for (Rank p = 1; p <= 6; ++p) {
      CAPTURE(name);
      CAPTURE(p);
      const Checked a = check(generated(name, skewed(p, 3, 5, 0)), "a.json", SyncChoice::automatic);
      const Checked b = check(generated(name, skewed(p, 2, 1, 9)), "b.json", SyncChoice::automatic);
      REQUIRE_MESSAGE(a.plan, a.refusal);
      REQUIRE_MESSAGE(b.plan, b.refusal);
      CHECK(a.report.bytes);  // verified as the alltoallv it is, in bytes
      CHECK(a.lowered);       // and its pattern lowered and verified
      CHECK(a.plan->alltoallv);
      CHECK(collective_name(*a.plan) == "alltoallv");
      CHECK(mpi_name(*a.plan) == "MPI_Alltoallv");
      // Two matrices, a zero and a non-zero diagonal: one pattern.
      CHECK(a.plan->programs == b.plan->programs);
      std::size_t copies = 0;
      for (Rank r = 0; r < p; ++r)
        for (const Step& s : a.plan->programs[r].steps) {
          CHECK_FALSE(s.staged);
          if (s.kind == Op::Kind::send)
            CHECK(s.from == std::vector<Segment>{{Buffer::input, s.peer, 1}});
          if (s.kind == Op::Kind::recv)
            CHECK(s.to == std::vector<Segment>{{Buffer::output, s.peer, 1}});
          if (s.kind == Op::Kind::copy) {
            CHECK(s.from == std::vector<Segment>{{Buffer::input, r, 1}});
            ++copies;
          }
        }
      CHECK(copies == p);  // the own message, even where the matrix's diagonal is 0
      ++planned;
    }
  CHECK(planned == 18);
}

TEST_CASE("check: an alltoallv schedule from a matrix with a zero off-diagonal count is refused") {
  for (const char* name : kDirect) {
    CAPTURE(name);
    Traffic t = skewed(4, 3, 5, 2);
    t.counts[3 * 4 + 0] = 0;
    const Checked c = check(generated(name, t), "zero.json", SyncChoice::automatic);
    CHECK(c.report.verdict() == Verdict::pass);  // it verifies: the refusal is deploy's
    CHECK_FALSE(c.plan);
    CHECK(c.refusal ==
          "its MPI_Alltoallv would depend on the counts: counts[3][0] is 0, so the schedule "
          "does not say in which phase the message 3 -> 0 travels when a call has one: generate "
          "the schedule to deploy from a matrix whose off-diagonal counts are all non-zero (the "
          "pattern does not depend on them)");
  }
}

TEST_CASE("check: an alltoallv schedule that forwards a message is refused - naming the transfer") {
  // 3 ranks; the message 0 -> 2 goes through rank 1, every other one directly.
  const Traffic t = skewed(3, 1, 1, 0);
  Schedule s{v_header(t), {}};
  Phase first("first"), second("second");
  const Block via[] = {{0, 1, 0}, {0, 2, 0}};
  first.add(0, 1, via);
  for (const auto& [a, b] : {std::pair<Rank, Rank>{1, 0}, {1, 2}, {2, 0}, {2, 1}})
    first.add(a, b, Block{a, b, 0});
  second.add(1, 2, Block{0, 2, 0});
  s.phases = {first, second};
  const Checked c = check(s, "forward.json", SyncChoice::automatic);
  REQUIRE_MESSAGE(c.report.verdict() == Verdict::pass, "the schedule must verify first");
  CHECK_FALSE(c.plan);
  INFO(c.refusal);
  CHECK(c.refusal.rfind("its MPI_Alltoallv would depend on the counts: phase 0: 0 -> 1 [0,1] "
                        "[0,2] carries block [0,2], not exactly its own message",
                        0) == 0);
  CHECK(c.refusal.find("only patterns that send every message whole") != std::string::npos);
}

TEST_CASE("check: an alltoallv schedule of pieces is refused (bvn's kind)") {
  // 2 ranks, 3 elements each way, in pieces of 2: [s, d, 0] in phase 0, [s, d, 1] in phase 1.
  const Traffic t = skewed(2, 2, 2, 0);
  REQUIRE(t.count(0, 1) > 2);
  REQUIRE(t.count(1, 0) > 2);
  ScheduleHeader h = v_header(t);
  h.piece_elements = 2;
  h.parts = 2;
  Schedule s{h, {Phase("piece 0"), Phase("piece 1")}};
  for (std::uint32_t k = 0; k < 2; ++k) {
    s.phases[k].add(0, 1, Block{0, 1, k});
    s.phases[k].add(1, 0, Block{1, 0, k});
  }
  const Checked c = check(s, "pieces.json", SyncChoice::automatic);
  REQUIRE_MESSAGE(c.report.verdict() == Verdict::pass, "the schedule must verify first");
  CHECK_FALSE(c.plan);
  CHECK(c.refusal.rfind("its MPI_Alltoallv would depend on the counts: its messages are cut into "
                        "pieces of 2 elements",
                        0) == 0);
}

TEST_CASE("count_dependence: nothing for a direct schedule of a non-zero matrix") {
  CHECK_FALSE(count_dependence(generated("pairwise-v", skewed(5, 3, 5, 0))));
  Claims claims;
  claims.cost_bytes = PhaseClaim::exactly(7, "seven");
  CHECK_FALSE(pattern_claims(claims).cost_bytes);
}

TEST_CASE("C text of an alltoallv plan: MPI_Alltoallv's routine - one schedule per size") {
  const Checked a =
      check(generated("pairwise-v", skewed(4, 3, 5, 0)), "pv.json", SyncChoice::automatic);
  const Checked b =
      check(generated("linear-v", skewed(4, 3, 5, 0)), "lv.json", SyncChoice::automatic);
  const Checked x =
      check(schedules::generate(schedules::require_algorithm("hypercube-exchange"), Hypercube(2)),
            "hx.json", SyncChoice::automatic);
  REQUIRE(a.plan);
  REQUIRE(b.plan);
  REQUIRE(x.plan);
  CHECK(routine_names({*a.plan}) == std::vector<std::string>{"phasecheck_pairwise_v_alltoallv"});
  const std::string routine = routine_source({*a.plan});
  CHECK(routine.find("int phasecheck_pairwise_v_alltoallv(const void *sendbuf, const int "
                     "sendcounts[], const int sdispls[],") != std::string::npos);
  CHECK(routine.find("#define PC_USE_ALLTOALL 0\n#define PC_USE_ALLGATHER 0\n#define "
                     "PC_USE_ALLTOALLV 1\n") != std::string::npos);
  CHECK(routine.find("pairwise-v\", PC_ALLTOALLV, 4,") != std::string::npos);
  CHECK(routine.find("(alltoallv) on 4 ranks") != std::string::npos);
  // MPI_Alltoall and MPI_Alltoallv on 4 ranks: two collectives, no conflict.
  const std::string interposer = interposer_source({*x.plan, *a.plan});
  CHECK(interposer.find("int MPI_Alltoallv(const void *sendbuf") != std::string::npos);
  CHECK_THROWS_WITH_AS(interposer_source({*a.plan, *b.plan}),
                       "pv.json and lv.json are both MPI_Alltoallv on 4 ranks: deploy one "
                       "schedule per collective and communicator size",
                       InputError);
}

}  // namespace
}  // namespace phasecheck::deploy
