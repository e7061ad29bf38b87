// The buffer programs of the Bruck family (format 3): bruck-index with Appendix A's rotations and
// packing, bruck-concat with Appendix B's temporary array, and Open MPI's ompi-bruck. For awkward
// sizes each program verifies as its algorithm claims (placement included), its sends form the
// algorithm's phase table, and it declares exactly the scratch it uses; one broken op in a final
// rotation is caught by the placement check, naming the rank and the output slot.

#include <doctest/doctest.h>

#include <algorithm>

#include "core/buffer_lowering.hpp"
#include "core/error.hpp"
#include "schedules/bruck.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::schedules;
using namespace phasecheck::verify;

namespace {

const Rank kSizes[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 17};

const Algorithm& algorithm(std::string_view name) {
  const auto* a = find_algorithm(name);
  REQUIRE(a != nullptr);
  return *a;
}

Parameters parameters(std::initializer_list<std::pair<const char*, Rank>> values) {
  Parameters p;
  for (const auto& [key, value] : values) p.set(key, std::to_string(value));
  return p;
}

Schedule program_of(std::string_view name, Topology topology, Parameters p = {}) {
  const Algorithm& a = algorithm(name);
  return generate_program(a, make_header(a, std::move(topology), std::move(p)));
}

Report verify_program(const Schedule& s) {
  return verify::verify(s, s.header.topology, algorithm(s.header.algorithm).claims(s.header));
}

std::string failed(const Report& r) {
  std::string s;
  for (const auto& c : r.checks)
    if (c.verdict != Verdict::pass) s += std::string(c.name()) + ": " + c.summary + "; ";
  return s;
}

const CheckResult& check(const Report& r, CheckId id) {
  for (const auto& c : r.checks)
    if (c.id == id) return c;
  FAIL("no check " << to_string(id));
  return r.checks.front();
}

/// The phase table the program's sends form, without the phases of local copies only, and how
/// many of those there were.
std::pair<std::vector<Phase>, std::size_t> communication_of(const Schedule& program) {
  std::vector<Phase> all;
  table_of(program, collect_into(all));
  std::vector<Phase> rounds;
  for (Phase& p : all)
    if (!p.empty()) rounds.push_back(std::move(p));
  return {std::move(rounds), all.size() - rounds.size()};
}

/// One more than the highest scratch slot any op reads or writes.
std::uint32_t scratch_used(const Schedule& program) {
  std::uint32_t used = 0;
  for (const Phase& p : program.phases)
    for (const BufferOp& op : p.ops())
      for (const Slot& s : {op.from, op.to})
        if (s.buffer == Buffer::scratch) used = std::max(used, s.index + op.count);
  return used;
}

/// `s` with the op of rank `rank` in the last phase that writes output[slot] reading one scratch
/// slot further (modulo `wrap`): an off-by-one in the final rotation.
Schedule off_by_one(Schedule s, Rank rank, std::uint32_t slot, std::uint32_t wrap) {
  Phase& last = s.phases.back();
  Phase broken(last.label());
  std::size_t changed = 0;
  for (BufferOp op : last.ops()) {
    if (op.src == rank && op.to == Slot{Buffer::output, slot}) {
      op.from.index = (op.from.index + 1) % wrap;
      ++changed;
    }
    broken.add(op);
  }
  REQUIRE(changed == 1);
  last = std::move(broken);
  return s;
}

/// Every check passes, the sends form `table` (and the rest are `local` phases of local copies),
/// and the program declares exactly the scratch it uses.
void check_program(const Schedule& program, const Schedule& table, std::size_t local) {
  const Report r = verify_program(program);
  CHECK_MESSAGE(r.verdict() == Verdict::pass, failed(r));
  CHECK(r.passed(CheckId::placement));
  CHECK(r.passed(CheckId::claims));
  // The invariants hold wherever they apply; a table of one round (n = 1, or one concat round)
  // may have no boundary where one does, and is then not evaluated, never failed.
  const auto invariants = std::find_if(r.checks.begin(), r.checks.end(),
                                       [](const CheckResult& c) { return c.id == CheckId::invariants; });
  REQUIRE(invariants != r.checks.end());
  CHECK((invariants->verdict == Verdict::pass || invariants->verdict == Verdict::not_evaluated));
  if (table.phases.size() > 1) CHECK(r.passed(CheckId::invariants));
  const auto [rounds, empty] = communication_of(program);
  CHECK(rounds == table.phases);
  CHECK(empty == local);
  REQUIRE(program.header.buffers);
  CHECK(program.header.buffers->scratch == scratch_used(program));
}

}  // namespace

TEST_CASE("bruck-index program: Fig. 3 (n = 5, r = 2) with Appendix A's rotations and packing") {
  const Schedule s = program_of("bruck-index", FullyConnected(5, 1), parameters({{"radix", 2}}));
  std::vector<std::string> labels;
  for (const Phase& p : s.phases) labels.push_back(p.label());
  CHECK(labels == std::vector<std::string>{
                      "Phase 1: rotate the n blocks i steps up (lines 3-4)",
                      "pack subphase 0, step 1",
                      "subphase 0, step 1, end of subphase 0",
                      "unpack subphase 0, step 1",
                      "pack subphase 1, step 1",
                      "subphase 1, step 1, end of subphase 1",
                      "unpack subphase 1, step 1",
                      "pack subphase 2, step 1",
                      "subphase 2, step 1, end of subphase 2",
                      "unpack subphase 2, step 1",
                      "Phase 3: rotate the n blocks i steps down, in reverse (lines 21-23)",
                  });
  // Phase 1 on processor 2: input[0..1] -> tmp[3..4], input[2..4] -> tmp[0..2].
  const auto ops_of = [](const Phase& p, Rank rank) {
    std::vector<BufferOp> out;
    for (const BufferOp& op : p.ops())
      if (op.src == rank) out.push_back(op);
    return out;
  };
  const Slot tmp0{Buffer::scratch, 0}, tmp3{Buffer::scratch, 3};
  CHECK(ops_of(s.phases[0], 2) == std::vector<BufferOp>{{2, 2, {Buffer::input, 0}, tmp3, 2},
                                                        {2, 2, {Buffer::input, 2}, tmp0, 3}});
  // Subphase 0 packs the odd block-ids 1 and 3 into packed_msg (scratch 5, 6), sends both in
  // place, and unpacks them.
  const Slot packed{Buffer::scratch, 5};
  CHECK(ops_of(s.phases[1], 0) ==
        std::vector<BufferOp>{{0, 0, {Buffer::scratch, 1}, packed, 1},
                              {0, 0, {Buffer::scratch, 3}, {Buffer::scratch, 6}, 1}});
  CHECK(ops_of(s.phases[2], 0) == std::vector<BufferOp>{{0, 1, packed, packed, 2}});
  // Subphase 1 packs block-ids 2 and 3, one run.
  CHECK(ops_of(s.phases[4], 0) == std::vector<BufferOp>{{0, 0, {Buffer::scratch, 2}, packed, 2}});
  // Phase 3 on processor 1: output[s] = tmp[(1 - s) mod 5].
  const auto phase3 = ops_of(s.phases.back(), 1);
  REQUIRE(phase3.size() == 5);
  CHECK(phase3[0] == BufferOp{1, 1, {Buffer::scratch, 1}, {Buffer::output, 0}, 1});
  CHECK(phase3[2] == BufferOp{1, 1, {Buffer::scratch, 4}, {Buffer::output, 2}, 1});
  // tmp is 5 slots, packed_msg the largest round's 2 blocks.
  CHECK(*s.header.buffers == BufferLayout{1, false, 5, 5, 7});
  const Report r = verify_program(s);
  CHECK_MESSAGE(r.verdict() == Verdict::pass, failed(r));
  CHECK(r.counts.phases == 11);
  CHECK(r.counts.c1 == 3);  // the paper's rounds: local phases do not communicate
  CHECK(r.counts.c2 == 5);
}

TEST_CASE("bruck-index program: k-port rounds pack one region per step, unpack with the next") {
  // n = 9, r = 4, k = 2: subphase 0 has steps 1-2 then 3; its unpack of steps 1-2 and its pack of
  // step 3 share a phase (they touch block-ids with different digits).
  const Schedule s =
      program_of("bruck-index", FullyConnected(9, 2), parameters({{"radix", 4}, {"ports", 2}}));
  std::vector<std::string> labels;
  for (const Phase& p : s.phases) labels.push_back(p.label());
  CHECK(labels == std::vector<std::string>{
                      "Phase 1: rotate the n blocks i steps up (lines 3-4)",
                      "pack subphase 0, steps 1-2",
                      "subphase 0, steps 1-2",
                      "unpack subphase 0, steps 1-2; pack subphase 0, step 3",
                      "subphase 0, step 3, end of subphase 0",
                      "unpack subphase 0, step 3",
                      "pack subphase 1, steps 1-2",
                      "subphase 1, steps 1-2, end of subphase 1",
                      "unpack subphase 1, steps 1-2",
                      "Phase 3: rotate the n blocks i steps down, in reverse (lines 21-23)",
                  });
  // Round "subphase 0, steps 1-2": digit 0 = 1 selects {1, 5}, = 2 selects {2, 6}: two regions.
  std::vector<BufferOp> sent;
  for (const BufferOp& op : s.phases[2].ops())
    if (op.src == 0) sent.push_back(op);
  CHECK(sent == std::vector<BufferOp>{{0, 1, {Buffer::scratch, 9}, {Buffer::scratch, 9}, 2},
                                      {0, 2, {Buffer::scratch, 11}, {Buffer::scratch, 11}, 2}});
  check_program(s,
                generate(algorithm("bruck-index"), FullyConnected(9, 2),
                         parameters({{"radix", 4}, {"ports", 2}})),
                7);
}

TEST_CASE("bruck-index program verifies for awkward n, every radix, k = 1, 2, 3") {
  for (Rank n : kSizes)
    for (Rank r = 2; r <= std::max<Rank>(n, 2); ++r)
      for (Rank k = 1; k <= 3; ++k) {
        INFO("n = " << n << ", r = " << r << ", k = " << k);
        const Parameters p = parameters({{"radix", r}, {"ports", k}});
        const Schedule program = program_of("bruck-index", FullyConnected(n, k), p);
        const Schedule table = generate(algorithm("bruck-index"), FullyConnected(n, k), p);
        // Two rotations and, per subphase, a pack before its rounds and an unpack after each.
        const unsigned w = radix_digits(n, r);
        check_program(program, table, 2 + w + table.phases.size());
      }
}

TEST_CASE("bruck-concat program verifies for awkward n and k = 1, 2, 3, n - 1") {
  for (Rank n : kSizes)
    for (Rank k : {1u, 2u, 3u, n > 1 ? n - 1 : 1u}) {
      INFO("n = " << n << ", k = " << k);
      const Parameters p = parameters({{"ports", k}});
      const Schedule program = program_of("bruck-concat", FullyConnected(n, k), p);
      check_program(program, generate(algorithm("bruck-concat"), FullyConnected(n, k), p), 2);
      CHECK(program.header.buffers->scratch == n);  // temp: n blocks
    }
}

TEST_CASE("bruck-concat program: n = 5, k = 1 accumulates temp[j] = B[x - j], then rotates") {
  const Schedule s = program_of("bruck-concat", FullyConnected(5, 1));
  REQUIRE(s.phases.size() == 5);
  std::vector<BufferOp> from0;
  for (std::size_t t = 1; t < 4; ++t)
    for (const BufferOp& op : s.phases[t].ops())
      if (op.src == 0) from0.push_back(op);
  const auto temp = [](std::uint32_t j) { return Slot{Buffer::scratch, j}; };
  CHECK(from0 == std::vector<BufferOp>{{0, 1, temp(0), temp(1), 1},
                                       {0, 2, temp(0), temp(2), 2},
                                       {0, 4, temp(0), temp(4), 1}});
  // Node 3: output[s] = temp[(3 - s) mod 5].
  std::vector<std::uint32_t> read;
  for (const BufferOp& op : s.phases.back().ops())
    if (op.src == 3) read.push_back(op.from.index);
  CHECK(read == std::vector<std::uint32_t>{3, 2, 1, 0, 4});
}

namespace {

/// `sends` (a program's communicating phases) are bruck-index's rounds with r = 2 on one port,
/// transfer for transfer.
void check_bruck_radix_2_rounds(const std::vector<Phase>& sends, Rank p) {
  const Schedule bruck =
      generate(algorithm("bruck-index"), FullyConnected(p, 1), parameters({{"radix", 2}}));
  REQUIRE(sends.size() == bruck.phases.size());
  for (std::size_t i = 0; i < sends.size(); ++i) {
    Phase relabelled = sends[i];
    relabelled.set_label(bruck.phases[i].label());
    CHECK(relabelled == bruck.phases[i]);
  }
}

}  // namespace

TEST_CASE("ompi-bruck verifies for awkward p, its sends are bruck-index's radix-2 rounds") {
  for (Rank p : kSizes) {
    INFO("p = " << p);
    const Schedule program = program_of("ompi-bruck", FullyConnected(p, 1));
    const Schedule table = generate(algorithm("ompi-bruck"), FullyConnected(p, 1));
    const unsigned rounds = radix_digits(p, 2);
    // The table is its program's, local phases (Steps 1 and 3, the copies back) included.
    REQUIRE(table.phases.size() == 2 + 2 * rounds);
    std::vector<Phase> all;
    table_of(program, collect_into(all));
    CHECK(all == table.phases);
    const Report r = verify_program(program);
    CHECK_MESSAGE(r.verdict() == Verdict::pass, failed(r));
    CHECK(r.counts.c1 == rounds);
    CHECK(program.header.buffers->scratch == p);
    CHECK(scratch_used(program) == p);
    const Report t =
        verify::verify(table, table.header.topology, algorithm("ompi-bruck").claims(table.header));
    CHECK_MESSAGE(t.verdict() == Verdict::pass, failed(t));
    const auto [sends, local] = communication_of(program);
    CHECK(local == 2 + rounds);
    check_bruck_radix_2_rounds(sends, p);
  }
}

TEST_CASE("ompi-bruck: p = 6, distance 4 sends the short run tmpbuf[4..5] into rbuf[4..5]") {
  const Schedule s = program_of("ompi-bruck", FullyConnected(6, 1));
  REQUIRE(s.phases.size() == 8);
  CHECK(s.phases[5].label() == "distance 4: sendrecv tmpbuf to rank + 4, into rbuf");
  std::vector<BufferOp> from1;
  for (const BufferOp& op : s.phases[3].ops())  // distance 2: runs [2, 4) only
    if (op.src == 1) from1.push_back(op);
  CHECK(from1 == std::vector<BufferOp>{{1, 3, {Buffer::scratch, 2}, {Buffer::output, 2}, 2}});
  from1.clear();
  for (const BufferOp& op : s.phases[5].ops())
    if (op.src == 1) from1.push_back(op);
  CHECK(from1 == std::vector<BufferOp>{{1, 5, {Buffer::scratch, 4}, {Buffer::output, 4}, 2}});
  // Step 1 on rank 0 is one copy (nothing wraps around).
  CHECK(s.phases[0].ops()[0] == BufferOp{0, 0, {Buffer::input, 0}, {Buffer::scratch, 0}, 6});
  CHECK(s.phases[0].ops()[1].src == 1);
}

TEST_CASE("modified-bruck verifies for awkward p with Bruck's radix-2 rounds and no local phase") {
  for (Rank p : kSizes) {
    INFO("p = " << p);
    const Schedule program = program_of("modified-bruck", FullyConnected(p, 1));
    const Report r = verify_program(program);
    CHECK_MESSAGE(r.verdict() == Verdict::pass, failed(r));
    CHECK(r.counts.phases == std::max(1u, radix_digits(p, 2)));
    CHECK(program.header.buffers->scratch == scratch_used(program));
    const auto [sends, local] = communication_of(program);
    CHECK(local == (p == 1 ? 1u : 0u));  // only the self copy of p = 1 is a phase of its own
    check_bruck_radix_2_rounds(sends, p);
  }
}

TEST_CASE("modified-bruck: p = 7 reads input at rank + j and writes output at the last hop") {
  const Schedule s = program_of("modified-bruck", FullyConnected(7, 1));
  REQUIRE(s.phases.size() == 3);
  std::vector<BufferOp> from2;
  for (const BufferOp& op : s.phases[1].ops())  // distance 2: block-ids 2, 3, 6
    if (op.src == 2) from2.push_back(op);
  CHECK(from2 == std::vector<BufferOp>{
                     {2, 4, {Buffer::input, 4}, {Buffer::output, 2}, 1},    // 2: last hop
                     {2, 4, {Buffer::scratch, 3}, {Buffer::output, 1}, 1},  // 3: from 1, last hop
                     {2, 4, {Buffer::input, 1}, {Buffer::scratch, 6}, 1},   // 6: on to 4 more
                 });
  CHECK(s.header.buffers->scratch == 7);  // block-id 6 (and 3, 5) wait in scratch[j]
}

TEST_CASE("an off-by-one in a final rotation is caught by placement, naming rank and slot") {
  struct Case {
    const char* name;
    Schedule program;
    const char* explanation;
  };
  const Case cases[] = {
      {"bruck-index", program_of("bruck-index", FullyConnected(5, 1)),
       "rank 2: output[1] holds (0,2,0), expected (1,2,0); it was written in phase 10 by a local "
       "copy on rank 2, reading scratch[2] (op 11). (1,2,0) is left in rank 2 scratch[1]"},
      {"bruck-concat", program_of("bruck-concat", FullyConnected(5, 1)),
       "rank 2: output[1] holds (0,0), expected (1,0); it was written in phase 4 by a local copy "
       "on rank 2, reading scratch[2] (op 11). (1,0) is left in rank 2 scratch[1]"},
      {"ompi-bruck", program_of("ompi-bruck", FullyConnected(5, 1)),
       "rank 2: output[1] holds (0,2,0), expected (1,2,0); it was written in phase 7 by a local "
       "copy on rank 2, reading scratch[2] (op 11). (1,2,0) is left in rank 2 scratch[1]"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    const Report r = verify_program(off_by_one(c.program, 2, 1, 5));
    const CheckResult& placement = check(r, CheckId::placement);
    REQUIRE(placement.verdict == Verdict::fail);
    REQUIRE(placement.counterexample);
    CHECK(placement.counterexample->resource == "rank 2 output[1]");
    CHECK(placement.counterexample->explanation == c.explanation);
    CHECK(r.passed(CheckId::delivery));  // every block still reached its rank: only placement sees it
  }
}

TEST_CASE("modified-bruck: a last hop reading the wrong input slot is caught by placement") {
  // Round 0 on p = 5: rank 1 sends block-id 1, input[2], into output[1] of rank 2; read input[3].
  Schedule s = program_of("modified-bruck", FullyConnected(5, 1));
  Phase broken(s.phases[0].label());
  for (BufferOp op : s.phases[0].ops()) {
    if (op.src == 1 && op.dst == 2 && op.to == Slot{Buffer::output, 1}) op.from.index = 3;
    broken.add(op);
  }
  s.phases[0] = std::move(broken);
  const Report r = verify_program(s);
  const CheckResult& placement = check(r, CheckId::placement);
  REQUIRE(placement.verdict == Verdict::fail);
  REQUIRE(placement.counterexample);
  CHECK(placement.counterexample->resource == "rank 2 output[1]");
  CHECK(placement.counterexample->explanation ==
        "rank 2: output[1] holds (1,3,0), expected (1,2,0); it was written in phase 0 by the send "
        "from rank 1, reading input[3] (op 7). (1,2,0) is left in rank 1 input[2]");
}

TEST_CASE("the program's claims count its local phases: the table's claims do not fit it") {
  const Schedule s = program_of("bruck-index", FullyConnected(5, 1));
  BruckIndexOptions o;
  o.n = 5;
  const Report r = verify::verify(s, s.header.topology, bruck_index_claims(o, Form::table));
  CHECK_FALSE(r.passed(CheckId::claims));
  CHECK(check(r, CheckId::claims).counterexample->explanation ==
        "the schedule has 11 phases; the algorithm claims 3 (sum over the w subphases of "
        "ceil(steps / k) rounds (Section 3.4))");
  CHECK(verify::verify(s, s.header.topology, bruck_index_claims(o, Form::program)).verdict() ==
        Verdict::pass);
}

TEST_CASE("ompi-bruck and modified-bruck: alltoall only, no parameters") {
  Parameters all;
  all.set("collective", "allgather");
  for (const char* name : {"ompi-bruck", "modified-bruck"}) {
    INFO(name);
    CHECK_THROWS_AS(generate(algorithm(name), FullyConnected(5, 1), all), InputError);
    CHECK_THROWS_AS(generate(algorithm(name), FullyConnected(5, 1), parameters({{"radix", 2}})),
                    InputError);
  }
}
