#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

#include "core/error.hpp"
#include "schedules/nccl/nccl_test_support.hpp"
#include "schedules/nccl/pat_allgather.hpp"

using namespace phasecheck;
using namespace phasecheck::schedules::nccl;
using namespace phasecheck::testing::nccl;

namespace {

Parameters allgather() {
  Parameters p;
  p.set("collective", "allgather");
  return p;
}

std::vector<Rank> offsets(const std::vector<PatSend>& sends) {
  std::vector<Rank> out;
  for (const PatSend& s : sends) out.push_back(s.offset);
  return out;
}

}  // namespace

TEST_CASE("PAT's sends for 8 ranks: aggFactor 4, aggDelta 2") {
  // The step depth 8 doubles aggFactor while it is below p/2: 1, 2, 4. Phase 2, scale 2: offset
  // 4 (dimension 2); scale 1: offsets 2 and 6 (dimension 1). Then as = 1: offsets 1 3 5 7
  // (dimension 0), phase 0 receives, and as = 1 = aggDelta / 2 again ends the walk.
  const std::vector<PatSend> sends = pat_allgather_sends(8);
  CHECK(offsets(sends) == std::vector<Rank>{4, 2, 6, 1, 3, 5, 7});
  CHECK(sends.front() == PatSend{4, 2});
  CHECK(sends[1] == PatSend{2, 1});
  CHECK(sends.back() == PatSend{7, 0});
}

TEST_CASE("PAT sends every offset 1..p-1 exactly once, higher bits first, for p up to 1024") {
  std::size_t runs = 0;
  for (Rank p = 2; p <= 1024; ++p) {
    std::vector<PatSend> sends = pat_allgather_sends(p);
    std::vector<Rank> seen = offsets(sends);
    std::sort(seen.begin(), seen.end());
    std::vector<Rank> all(p - 1);
    std::iota(all.begin(), all.end(), Rank{1});
    INFO("p = " << p);
    CHECK(seen == all);
    ++runs;
  }
  CHECK(runs == 1023);
}

TEST_CASE("nccl-pat-allgather verifies with its claims on one GPU per node") {
  std::size_t runs = 0;
  for (Rank p : {2u, 3u, 5u, 8u, 13u, 16u, 33u, 64u}) {
    const auto r = verify_row("nccl-pat-allgather", FullyConnected(p, 1), allgather());
    INFO("p = " << p);
    CHECK(r.passed(CheckId::delivery));
    CHECK(r.passed(CheckId::contention));
    CHECK(r.passed(CheckId::claims));
    CHECK(r.counts.c2 == p - 1);
    // Single-ported nodes (Sanders-Traeff) pair ranks up; a shift r -> r - 2^d is no pairing.
    const auto cluster =
        verify_row("nccl-pat-allgather", Cluster(std::vector<Rank>(p, 1)), allgather());
    CHECK(cluster.passed(CheckId::delivery));
    CHECK(cluster.passed(CheckId::contention) == (p == 2));
    ++runs;
  }
  CHECK(runs == 8);
  const auto program = verify_program("nccl-pat-allgather", FullyConnected(12, 1), allgather());
  CHECK_MESSAGE(program.verdict() == verify::Verdict::pass, failed_checks(program));
  CHECK(program.passed(CheckId::placement));
}

TEST_CASE("nccl-pat-allgather refuses nodes of several GPUs, naming NCCL's ring") {
  CHECK_THROWS_WITH_AS(verify_row("nccl-pat-allgather", Cluster({2, 2}), allgather()),
                       doctest::Contains("NCCL uses ring"), InputError);
  CHECK_THROWS_WITH_AS(verify_row("nccl-pat-allgather", FullyConnected(1, 1), allgather()),
                       doctest::Contains("at least 2 ranks"), InputError);
}

TEST_CASE("nccl-pat-allgather mutant: one offset off by one fails delivery") {
  const auto& a = row("nccl-pat-allgather");
  const ScheduleHeader h = schedules::make_header(a, FullyConnected(16, 1), allgather());
  std::vector<PatSend> sends = pat_allgather_sends(16);
  sends[5].offset += 1;
  Schedule mutant{h, {}};
  emit_pat_allgather(16, sends, collect_into(mutant.phases));
  const auto r = verify::verify(mutant, h.topology, a.claims(h));
  CHECK(r.verdict() == verify::Verdict::fail);
  CHECK_FALSE(r.passed(CheckId::delivery));
}
