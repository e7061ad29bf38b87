// MSCCL++ export (programs/mscclpp_export.hpp): the plans it makes, and the model of the
// executor (verify/mscclpp_execution.hpp) judging them as it judges any plan.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include "core/error.hpp"
#include "programs/mscclpp_export.hpp"
#include "schedules/registry.hpp"
#include "tests/programs/registered_programs.hpp"
#include "verify/mscclpp_execution.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using mscclpp::OpKind;

namespace {

Schedule program_of(std::string_view name, Topology machine, Parameters parameters = {}) {
  const schedules::Algorithm& a = schedules::require_algorithm(name);
  return schedules::generate_program(a, schedules::make_header(a, machine, std::move(parameters)));
}

std::string kinds(const mscclpp::Threadblock& tb) {
  std::string s;
  for (const mscclpp::Op& op : tb.ops)
    s += (s.empty() ? "" : " ") + std::string(to_string(op.kind));
  return s;
}

std::size_t count(const mscclpp::Plan& plan, OpKind kind) {
  std::size_t n = 0;
  for (const mscclpp::Gpu& g : plan.gpus)
    for (const mscclpp::Threadblock& tb : g.threadblocks)
      n += static_cast<std::size_t>(std::count_if(
          tb.ops.begin(), tb.ops.end(), [&](const mscclpp::Op& op) { return op.kind == kind; }));
  return n;
}

verify::Report judge(const mscclpp::Plan& plan) {
  const Schedule back = mscclpp::lower(plan, "export.json");
  return verify::verify(back, back.header.topology);
}

void check_verifies(const mscclpp::Plan& plan) {
  const verify::Report r = judge(plan);
  INFO(r.broken_claims(true));
  CHECK(r.passed(CheckId::execution));
  CHECK(r.passed(CheckId::placement));
  CHECK(r.passed(CheckId::delivery));
}

}  // namespace

TEST_CASE(
    "mscclpp export: pairwise alltoall on 3 gpus, a threadblock per peer and one for copies") {
  const mscclpp::Plan plan = programs::to_mscclpp(program_of("shift", FullyConnected(3, 1)), {});
  CHECK(plan.collective == "alltoall");
  CHECK(plan.protocol == "Simple");
  CHECK_FALSE(plan.inplace);
  CHECK(plan.max_message_size == ~std::uint64_t{0});
  REQUIRE(plan.gpus.size() == 3);
  for (const mscclpp::Gpu& g : plan.gpus) {
    CAPTURE(g.id);
    CHECK(g.input_chunks == 3);
    CHECK(g.output_chunks == 3);
    CHECK(g.scratch_chunks == 2);  // one staging chunk per send it receives
    REQUIRE(g.channels.size() == 1);
    std::vector<std::uint32_t> others;
    for (std::uint32_t r = 0; r < 3; ++r)
      if (r != g.id) others.push_back(r);
    CHECK(g.channels[0].connected_to == others);
    CHECK(g.remote_buffers.size() == 2);
    for (const mscclpp::RemoteBuffer& b : g.remote_buffers) CHECK(b.type == Buffer::scratch);
    CHECK(g.semaphores.empty());  // nothing one threadblock writes is read by another
    REQUIRE(g.threadblocks.size() == 3);
    // Each peer is sent to in one phase and received from in the other; a receive's copy and a
    // later put touch no common slot, so no nop between them.
    for (std::uint32_t t = 0; t < 2; ++t) {
      const std::string ops = kinds(g.threadblocks[t]);
      CHECK((ops == "rlxsignal rlxwait nop put nop signal wait nop copy" ||
             ops == "rlxsignal rlxwait wait nop copy put nop signal"));
    }
    CHECK(kinds(g.threadblocks[2]) == "copy");  // the self copy
  }
  check_verifies(plan);
}

TEST_CASE("mscclpp export: pairwise alltoall on 4 gpus verifies, and the puts land in staging") {
  const mscclpp::Plan plan =
      programs::to_mscclpp(program_of("pairwise-xor", FullyConnected(4, 1)), {.name = "xor-4"});
  CHECK(plan.name == "xor-4");
  CHECK(count(plan, OpKind::put) == 12);
  CHECK(count(plan, OpKind::signal) == 12);
  CHECK(count(plan, OpKind::wait) == 12);
  CHECK(count(plan, OpKind::relaxed_signal) == 12);
  CHECK(count(plan, OpKind::copy) == 16);
  for (const mscclpp::Gpu& g : plan.gpus)
    for (const mscclpp::Threadblock& tb : g.threadblocks)
      for (const mscclpp::Op& op : tb.ops)
        if (op.kind == OpKind::put) {
          CHECK(op.dst.at(0).buffer_id == 0u);
          CHECK(op.dst.at(0).index < 3u);
        }
  check_verifies(plan);
}

TEST_CASE("mscclpp export: a ring allgather orders a forward after its receive by a semaphore") {
  Parameters allgather;
  allgather.set("collective", "allgather");
  const mscclpp::Plan plan =
      programs::to_mscclpp(program_of("mpich-ring", FullyConnected(4, 1), allgather), {});
  CHECK(plan.collective == "allgather");
  for (const mscclpp::Gpu& g : plan.gpus) {
    CAPTURE(g.id);
    CHECK(g.channels.at(0).connected_to.size() == 2);
    CHECK(g.remote_buffers.size() == 1);  // it puts to its successor only
    // The sending threadblock puts what the copies threadblock (its own block) and the
    // receiving one (the others) wrote: a semaphore from each.
    CHECK(g.semaphores.size() == 2);
    REQUIRE(g.threadblocks.size() == 3);
    const std::uint32_t to = g.channels[0].connected_to[0] == (g.id + 1) % 4 ? 0 : 1;
    CHECK(kinds(g.threadblocks[to]) ==
          "rlxsignal rlxwait sem_acquire nop put nop signal sem_acquire nop put nop signal "
          "sem_acquire nop put nop signal");
    CHECK(kinds(g.threadblocks[1 - to]) ==
          "rlxsignal rlxwait wait nop copy nop sem_release wait nop copy nop sem_release wait nop "
          "copy");
    CHECK(kinds(g.threadblocks[2]) == "copy nop sem_release");
  }
  CHECK(count(plan, OpKind::sem_release) == 12);  // 3 puts on each of 4 gpus
  CHECK(count(plan, OpKind::sem_acquire) == 12);
  check_verifies(plan);
}

TEST_CASE("mscclpp export: the nops it places are needed (one taken out is a race)") {
  mscclpp::Plan plan = programs::to_mscclpp(program_of("shift", FullyConnected(3, 1)), {});
  REQUIRE(judge(plan).passed(CheckId::execution));
  // The nop between gpu 0's put and its signal: without it the signal may overtake the put.
  auto& ops = plan.gpus[0].threadblocks[0].ops;
  const auto put = std::find_if(ops.begin(), ops.end(),
                                [](const mscclpp::Op& op) { return op.kind == OpKind::put; });
  REQUIRE(put != ops.end());
  REQUIRE((put + 1)->kind == OpKind::nop);
  ops.erase(put + 1);
  const verify::Report r = judge(plan);
  CHECK_FALSE(r.passed(CheckId::execution));
  CHECK(r.verdict() == verify::Verdict::fail);
}

TEST_CASE("mscclpp export: every registered algorithm exports to a plan that verifies") {
  const Topology machines[] = {FullyConnected(5, 1), FullyConnected(8, 2)};
  int exported = 0;
  for (const auto& [algorithm, machine, program] : testing::registered_programs(machines)) {
    CAPTURE(algorithm->name);
    CAPTURE(describe(machine));
    mscclpp::Plan plan;
    try {
      plan = programs::to_mscclpp(program, {});
    } catch (const InputError& e) {
      // Only the executor's limit may refuse one.
      CHECK(std::string(e.what()).find("at most 64 per threadblock") != std::string::npos);
      continue;
    }
    check_verifies(plan);
    ++exported;
  }
  CHECK(exported >= 20);
}

TEST_CASE("mscclpp export: an alltoall in place is one buffer, named the input as the DSL does") {
  const mscclpp::Plan plan =
      programs::to_mscclpp(program_of("ompi-inplace", FullyConnected(4, 1)), {});
  CHECK(plan.inplace);
  for (const mscclpp::Gpu& g : plan.gpus) {
    CHECK(g.input_chunks == g.output_chunks);
    for (const mscclpp::Threadblock& tb : g.threadblocks)
      for (const mscclpp::Op& op : tb.ops)
        for (const auto* refs : {&op.src, &op.dst})
          for (const mscclpp::BufferRef& ref : *refs) CHECK(ref.type != Buffer::output);
  }
  check_verifies(plan);
}

TEST_CASE("mscclpp export: local copies that swap go through staging") {
  Schedule program;
  program.header.algorithm = "swap";
  program.header.collective = Collective::alltoall;
  program.header.topology = FullyConnected(1, 1);
  BufferLayout layout;
  layout.chunks = 1;
  layout.input = 1;
  layout.output = 1;
  layout.scratch = 2;
  program.header.buffers = layout;
  Phase first("fill"), swap("swap"), back("back");
  first.add(BufferOp{0, 0, {Buffer::input, 0}, {Buffer::scratch, 0}, 1});
  first.add(BufferOp{0, 0, {Buffer::input, 0}, {Buffer::scratch, 1}, 1});
  swap.add(BufferOp{0, 0, {Buffer::scratch, 0}, {Buffer::scratch, 1}, 1});
  swap.add(BufferOp{0, 0, {Buffer::scratch, 1}, {Buffer::scratch, 0}, 1});
  back.add(BufferOp{0, 0, {Buffer::scratch, 1}, {Buffer::output, 0}, 1});
  program.phases = {first, swap, back};
  REQUIRE(verify::verify(program, program.header.topology).passed(CheckId::placement));
  const mscclpp::Plan plan = programs::to_mscclpp(program, {});
  CHECK(plan.gpus.at(0).scratch_chunks == 4);  // two staging slots for the swap
  CHECK(count(plan, OpKind::copy) == 7);
  check_verifies(plan);
}

TEST_CASE("mscclpp export: limits and options are refused with the value") {
  const Schedule shift = program_of("shift", FullyConnected(3, 1));
  CHECK_THROWS_WITH_AS(programs::to_mscclpp(shift, {.min_message_size = 10, .max_message_size = 5}),
                       "--min-bytes 10 --max-bytes 5: expected min <= max", InputError);
  // Gpu 0 stages 24 chunks by local copies in one threadblock, then sends one a phase: each send
  // adds a release (a nop and a sem_release) behind its copy, 72 ops in all.
  const std::uint32_t c = 24;
  Schedule staged;
  staged.header.algorithm = "staged";
  staged.header.collective = Collective::alltoall;
  staged.header.topology = FullyConnected(2, 1);
  staged.header.parts = c;
  staged.header.buffers = BufferLayout{c, false, 2 * c, 2 * c, c};
  Phase first("stage");
  for (std::uint32_t k = 0; k < c; ++k)
    first.add(BufferOp{0, 0, {Buffer::input, c + k}, {Buffer::scratch, k}, 1});
  first.add(BufferOp{0, 0, {Buffer::input, 0}, {Buffer::output, 0}, c});
  first.add(BufferOp{1, 1, {Buffer::input, c}, {Buffer::output, c}, c});
  first.add(BufferOp{1, 0, {Buffer::input, 0}, {Buffer::output, c}, c});
  staged.phases.push_back(first);
  for (std::uint32_t k = 0; k < c; ++k) {
    Phase send("send " + std::to_string(k));
    send.add(BufferOp{0, 1, {Buffer::scratch, k}, {Buffer::output, k}, 1});
    staged.phases.push_back(send);
  }
  REQUIRE(verify::verify(staged, staged.header.topology).passed(CheckId::placement));
  CHECK_THROWS_WITH_AS(programs::to_mscclpp(staged, {}),
                       "gpu 0 threadblock 1 (its local copies) would run 73 ops; the MSCCL++ "
                       "executor runs at most 64 per threadblock (MAX_OPERATION)",
                       InputError);
}

TEST_CASE("mscclpp export: a pair with more ops than a threadblock holds goes on to fresh ones") {
  // A ring over 24 gpus forwards 22 times through each threadblock: 5 ops a phase each.
  Parameters allgather;
  allgather.set("collective", "allgather");
  const mscclpp::Plan plan =
      programs::to_mscclpp(program_of("mpich-ring", FullyConnected(24, 1), allgather), {});
  for (const mscclpp::Gpu& g : plan.gpus) {
    CAPTURE(g.id);
    for (const mscclpp::Threadblock& tb : g.threadblocks)
      CHECK(tb.ops.size() <= mscclpp::kMaxOpsPerThreadblock);
    // Both neighbours over more than one threadblock, each with its own channel.
    REQUIRE(g.channels.size() == 1);
    CHECK(g.channels[0].connected_to.size() > 2);
    CHECK(g.threadblocks.size() == g.channels[0].connected_to.size() + 1);
  }
  check_verifies(plan);
}

TEST_CASE("mscclpp export: the same program gives the same plan") {
  const Schedule program = program_of("bruck-index", FullyConnected(7, 1));
  const mscclpp::Plan a = programs::to_mscclpp(program, {.min_message_size = 1024});
  const mscclpp::Plan b = programs::to_mscclpp(program, {.min_message_size = 1024});
  CHECK(a == b);
  CHECK(a.min_message_size == 1024);
  check_verifies(a);
}
