// The MSCCL++ execution model and its checkers (core/mscclpp_execution.hpp,
// verify/mscclpp_execution.hpp): plans built in code, each rule of docs/mscclpp.md with a plan it
// accepts and a broken one it catches, with the fault's kind, ops and words.
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/mscclpp.hpp"
#include "core/mscclpp_execution.hpp"
#include "verify/mscclpp_execution.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::mscclpp;

namespace {

/// A plan whose gpus have one memory channel to every other gpu (channel j of gpu g goes to the
/// j-th other gpu) and reach every other gpu's scratch and output (remote buffer 2j: scratch of
/// the j-th other gpu, 2j + 1: its output); every threadblock lists all of them.
struct Builder {
  Plan plan;
  Builder(std::string collective, std::uint32_t gpus, std::uint32_t in, std::uint32_t out,
          std::uint32_t scratch, bool inplace = false) {
    plan.name = "t";
    plan.collective = std::move(collective);
    plan.protocol = "Simple";
    plan.inplace = inplace;
    for (std::uint32_t g = 0; g < gpus; ++g) {
      Gpu gpu;
      gpu.id = g;
      gpu.input_chunks = in;
      gpu.output_chunks = out;
      gpu.scratch_chunks = scratch;
      Channel memory{ChannelType::memory, {}};
      for (std::uint32_t q = 0; q < gpus; ++q)
        if (q != g) {
          memory.connected_to.push_back(q);
          gpu.remote_buffers.push_back({q, Buffer::scratch, {ChannelType::memory}});
          gpu.remote_buffers.push_back({q, Buffer::output, {ChannelType::memory}});
        }
      gpu.channels.push_back(memory);
      plan.gpus.push_back(gpu);
    }
  }
  static std::uint32_t channel(std::uint32_t g, std::uint32_t q) { return q < g ? q : q - 1; }
  static std::uint32_t remote(std::uint32_t g, std::uint32_t q, Buffer b) {
    return 2 * channel(g, q) + (b == Buffer::output ? 1 : 0);
  }
  /// A new threadblock of gpu g; its index.
  std::uint32_t tb(std::uint32_t g) {
    Gpu& gpu = plan.gpus[g];
    Threadblock t;
    t.id = static_cast<std::uint32_t>(gpu.threadblocks.size());
    ThreadblockChannels c{ChannelType::memory, std::nullopt, {}};
    RemoteBufferRefs r{ChannelType::memory, {}};
    for (std::uint32_t j = 0; j < gpu.channels[0].connected_to.size(); ++j)
      c.channel_ids.push_back(j);
    for (std::uint32_t j = 0; j < gpu.remote_buffers.size(); ++j) r.remote_buffer_ids.push_back(j);
    t.channels.push_back(c);
    t.remote_buffer_refs.push_back(r);
    gpu.threadblocks.push_back(t);
    return t.id;
  }
  Builder& add(std::uint32_t g, std::uint32_t t, Op op) {
    plan.gpus[g].threadblocks[t].ops.push_back(std::move(op));
    return *this;
  }
};

Op nop() { return Op{}; }
Op signal(std::uint32_t g, std::uint32_t q, bool relaxed = false) {
  Op op;
  op.kind = relaxed ? OpKind::relaxed_signal : OpKind::signal;
  op.channel_type = ChannelType::memory;
  op.channel_ids = {Builder::channel(g, q)};
  return op;
}
Op wait(std::uint32_t g, std::uint32_t q, bool relaxed = false) {
  Op op = signal(g, q, relaxed);
  op.kind = relaxed ? OpKind::relaxed_wait : OpKind::wait;
  return op;
}
BufferRef local(Buffer b, std::uint32_t index, std::uint32_t size = 1) {
  return {b, std::nullopt, std::nullopt, index, size};
}
BufferRef remote(std::uint32_t g, std::uint32_t q, Buffer b, std::uint32_t index,
                 std::uint32_t size = 1) {
  return {std::nullopt, Builder::remote(g, q, b), std::nullopt, index, size};
}
Op put(BufferRef from, BufferRef to, OpKind kind = OpKind::put) {
  Op op;
  op.kind = kind;
  op.channel_type = ChannelType::memory;
  op.src = {from};
  op.dst = {to};
  return op;
}
Op copy(BufferRef from, BufferRef to, OpKind kind = OpKind::copy) {
  Op op;
  op.kind = kind;
  op.src = {from};
  op.dst = {to};
  return op;
}

/// The DSL's handshake at a call's start (rlxsignal, rlxwait, nop on the channel to q): the peer's
/// puts of this call come after this gpu's caller read the previous call's output.
void handshake(Builder& b, std::uint32_t g, std::uint32_t t, std::uint32_t q) {
  b.add(g, t, signal(g, q, true)).add(g, t, wait(g, q, true)).add(g, t, nop());
}

/// A 2-gpu allgather out of place as the DSL writes one: each gpu copies its input into its
/// output, puts it into the peer's output, then signals (data ordered, after a nop) and waits.
Builder allgather(bool nop_before_signal = true, bool relaxed = false) {
  Builder b("allgather", 2, 1, 2, 0);
  for (std::uint32_t g = 0; g < 2; ++g) {
    const std::uint32_t q = 1 - g;
    const std::uint32_t t = b.tb(g);
    handshake(b, g, t, q);
    b.add(g, t, copy(local(Buffer::input, 0), local(Buffer::output, g)));
    b.add(g, t, put(local(Buffer::input, 0), remote(g, q, Buffer::output, g)));
    if (nop_before_signal) b.add(g, t, nop());
    b.add(g, t, signal(g, q, relaxed)).add(g, t, wait(g, q)).add(g, t, nop());
  }
  return b;
}

/// A 2-gpu alltoall in place through scratch: put the peer's block into its scratch, signal;
/// wait, then copy out of scratch into the block the put read. `relaxed_start`: the DSL's
/// handshake first (rlxsignal, rlxwait, nop), which keeps the next call's put off a scratch
/// slot this call still reads.
Builder alltoall(bool handshake = true) {
  Builder b("alltoall", 2, 2, 2, 1, true);
  for (std::uint32_t g = 0; g < 2; ++g) {
    const std::uint32_t q = 1 - g;
    const std::uint32_t t = b.tb(g);
    if (handshake) b.add(g, t, signal(g, q, true)).add(g, t, wait(g, q, true)).add(g, t, nop());
    b.add(g, t, put(local(Buffer::input, q), remote(g, q, Buffer::scratch, 0)));
    b.add(g, t, nop()).add(g, t, signal(g, q)).add(g, t, wait(g, q)).add(g, t, nop());
    b.add(g, t, copy(local(Buffer::scratch, 0), local(Buffer::input, q)));
  }
  return b;
}

std::vector<ExecutionFault> faults(const Plan& p) {
  return lower(p, "t.json").header.imported->faults;
}

std::optional<ExecutionFault> first(const std::vector<ExecutionFault>& f, ExecutionFaultKind k) {
  for (const ExecutionFault& x : f)
    if (x.kind == k) return x;
  return std::nullopt;
}

verify::Report judge(const Plan& p) {
  const Schedule s = lower(p, "t.json");
  return verify::verify(s, s.header.topology);
}

}  // namespace

TEST_CASE("mscclpp: an allgather with put, nop, data-ordered signal and wait verifies") {
  const verify::Report r = judge(allgather().plan);
  INFO(r.broken_claims(true));
  CHECK(r.verdict() == verify::Verdict::pass);
  CHECK(r.passed(verify::CheckId::execution));
  CHECK(r.passed(verify::CheckId::placement));
  const Schedule s = lower(allgather().plan, "t.json");
  // The copy and the put share the block lane: layered one after the other.
  REQUIRE(s.phases.size() == 2);
  CHECK(s.phases[0].ops().size() == 2);
  CHECK(s.phases[1].ops().size() == 2);
}

TEST_CASE("mscclpp: a signal without the nop before it does not order the block's put") {
  const auto f = faults(allgather(false).plan);
  const std::optional<ExecutionFault> race = first(f, ExecutionFaultKind::race);
  REQUIRE(race);
  INFO(race->explanation);
  // The peer's caller reads its output after the call: the put may not have landed.
  CHECK(race->explanation ==
        "gpu 0 output[1]: gpu 1 tb 0 step 4 (put to gpu 0) writes it, the caller between calls 1 "
        "and 2 on gpu 0 (it reads the output and writes the next input) reads it, and nothing "
        "orders them: which comes first depends on timing (3 more racing accesses)");
  CHECK_FALSE(first(faults(allgather().plan), ExecutionFaultKind::race));
}

TEST_CASE(
    "mscclpp: an alltoall in place through scratch, with the DSL's handshake, verifies over two "
    "calls") {
  const verify::Report r = judge(alltoall().plan);
  INFO(r.broken_claims(true));
  CHECK(r.verdict() == verify::Verdict::pass);
  const Schedule s = lower(alltoall().plan, "t.json");
  CHECK(s.header.imported->summary.find("2 calls") != std::string::npos);
  CHECK(s.phases.size() == 2);
}

TEST_CASE(
    "mscclpp: without the handshake the next call's put lands in scratch this call still reads") {
  const auto f = faults(alltoall(false).plan);
  const std::optional<ExecutionFault> race = first(f, ExecutionFaultKind::race);
  REQUIRE(race);
  CHECK(race->explanation.find("call 2") != std::string::npos);
  CHECK(race->explanation.find("scratch[0]") != std::string::npos);
}

TEST_CASE(
    "mscclpp: a data-ordered signal made relaxed orders no data: the peer's copy races the put") {
  Builder b = alltoall();
  b.plan.gpus[0].threadblocks[0].ops[5].kind = OpKind::relaxed_signal;  // the signal after the put
  const auto f = faults(b.plan);
  const std::optional<ExecutionFault> race = first(f, ExecutionFaultKind::race);
  REQUIRE(race);
  CHECK(race->explanation.find("only a relaxed signal") != std::string::npos);
  CHECK(race->steps.size() == 2);
  CHECK(race->steps[0] == StepRef{0, 0, 3});  // the put
  CHECK(race->steps[1] == StepRef{1, 0, 8});  // the copy out of scratch
}

TEST_CASE("mscclpp: a copy moved before its wait reads scratch before the put is known to land") {
  Builder b = alltoall();
  auto& ops = b.plan.gpus[1].threadblocks[0].ops;
  const Op c = ops.back();
  ops.pop_back();
  ops.insert(ops.begin() + 6, c);  // before the wait
  const std::optional<ExecutionFault> race = first(faults(b.plan), ExecutionFaultKind::race);
  REQUIRE(race);
  CHECK(race->explanation.find("(copy) reads it") != std::string::npos);
}

TEST_CASE("mscclpp: a dropped signal leaves a wait never released and the counts unbalanced") {
  Builder b = alltoall();
  auto& ops = b.plan.gpus[0].threadblocks[0].ops;
  ops.erase(ops.begin() + 5);  // the signal after the put
  const auto f = faults(b.plan);
  const std::optional<ExecutionFault> never = first(f, ExecutionFaultKind::never_released);
  REQUIRE(never);
  CHECK(never->explanation.find("waits forever") != std::string::npos);
  const std::optional<ExecutionFault> count = first(f, ExecutionFaultKind::count_mismatch);
  REQUIRE(count);
  CHECK(
      count->explanation ==
      "gpu 0 signals gpu 1 on its 1st memory channel there once per call and gpu 1 waits 2 times");
}

TEST_CASE("mscclpp: a put to the wrong remote index fails placement and races the other put") {
  Builder b("alltoall", 3, 3, 3, 2, true);
  for (std::uint32_t g = 0; g < 3; ++g) {
    const std::uint32_t t = b.tb(g);
    for (std::uint32_t q = 0; q < 3; ++q)
      if (q != g) b.add(g, t, signal(g, q, true));
    for (std::uint32_t q = 0; q < 3; ++q)
      if (q != g) b.add(g, t, wait(g, q, true));
    b.add(g, t, nop());
    for (std::uint32_t q = 0; q < 3; ++q)
      if (q != g)
        b.add(g, t,
              put(local(Buffer::input, q), remote(g, q, Buffer::scratch, Builder::channel(q, g))));
    b.add(g, t, nop());
    for (std::uint32_t q = 0; q < 3; ++q)
      if (q != g) b.add(g, t, signal(g, q));
    for (std::uint32_t q = 0; q < 3; ++q)
      if (q != g) b.add(g, t, wait(g, q));
    b.add(g, t, nop());
    for (std::uint32_t q = 0; q < 3; ++q)
      if (q != g)
        b.add(g, t, copy(local(Buffer::scratch, Builder::channel(g, q)), local(Buffer::input, q)));
  }
  CHECK(judge(b.plan).verdict() == verify::Verdict::pass);
  b.plan.gpus[0].threadblocks[0].ops[5].dst[0].index =
      1;  // gpu 0's put to gpu 1 lands on gpu 2's slot
  const verify::Report r = judge(b.plan);
  CHECK_FALSE(r.passed(verify::CheckId::placement));
  const std::optional<ExecutionFault> race = first(faults(b.plan), ExecutionFaultKind::race);
  REQUIRE(race);
  CHECK(race->explanation.find("scratch[1]") != std::string::npos);
}

TEST_CASE("mscclpp: two gpus that each wait before they signal deadlock") {
  Builder b("allgather", 2, 1, 2, 0);
  for (std::uint32_t g = 0; g < 2; ++g) {
    const std::uint32_t t = b.tb(g);
    b.add(g, t, wait(g, 1 - g)).add(g, t, nop());
    b.add(g, t, copy(local(Buffer::input, 0), local(Buffer::output, g)));
    b.add(g, t, put(local(Buffer::input, 0), remote(g, 1 - g, Buffer::output, g)));
    b.add(g, t, nop()).add(g, t, signal(g, 1 - g));
  }
  const auto f = faults(b.plan);
  const std::optional<ExecutionFault> d = first(f, ExecutionFaultKind::deadlock);
  REQUIRE(d);
  CHECK(d->explanation.find("wait for each other in a cycle") != std::string::npos);
  CHECK(d->explanation.find("gpu 0 tb 0 step 0 (wait)") != std::string::npos);
}

TEST_CASE("mscclpp: an op beyond its gpu's declared chunks moves nothing and is a fault") {
  Builder b = allgather();
  b.plan.gpus[1].threadblocks[0].ops[3].dst[0].index = 5;  // the copy
  const std::optional<ExecutionFault> o = first(faults(b.plan), ExecutionFaultKind::outside_buffer);
  REQUIRE(o);
  CHECK(o->explanation ==
        "gpu 1 tb 0 step 3 (copy) names output cells [5, 6) of gpu 1, beyond its 2 chunks");
  CHECK(o->steps == std::vector<StepRef>{{1, 0, 3}});
  CHECK(o->phase == std::optional<std::size_t>{0});  // the copy is the first data op of gpu 1
}

TEST_CASE("mscclpp: packets carry their own flag: a put of packets and an unpack need no signal") {
  Builder b("allgather", 2, 1, 2, 2);
  b.plan.protocol = "LL";
  b.plan.inplace = true;
  for (std::uint32_t g = 0; g < 2; ++g) {
    const std::uint32_t q = 1 - g, t = b.tb(g);
    Op p = put(local(Buffer::input, 0), remote(g, q, Buffer::scratch, g), OpKind::put_packets);
    b.add(g, t, p);
    b.add(g, t, copy(local(Buffer::scratch, q), local(Buffer::output, q), OpKind::unpack_packets));
  }
  // One scratch buffer: the next call's packets overwrite a slot this call may still unpack.
  const std::optional<ExecutionFault> race = first(faults(b.plan), ExecutionFaultKind::race);
  REQUIRE(race);
  CHECK(race->explanation.find("call 2") != std::string::npos);
  // A double scratch buffer alternates halves between calls: three calls modelled, no race.
  b.plan.use_double_scratch_buffer = true;
  const verify::Report r = judge(b.plan);
  INFO(r.broken_claims(true));
  CHECK(r.verdict() == verify::Verdict::pass);
  CHECK(lower(b.plan, "t.json").header.imported->summary.find("3 calls") != std::string::npos);
  // An unpack of packets that no op of the call writes spins forever.
  b.plan.gpus[0].threadblocks[0].ops[1].src[0].index = 0;
  const std::optional<ExecutionFault> never =
      first(faults(b.plan), ExecutionFaultKind::never_released);
  REQUIRE(never);
  CHECK(never->explanation.find("spins on their flag forever") != std::string::npos);
}

TEST_CASE(
    "mscclpp: a semaphore orders two threadblocks of a gpu, and an acquire never released waits "
    "forever") {
  Builder b("allgather", 2, 1, 2, 1);
  for (std::uint32_t g = 0; g < 2; ++g) {
    b.plan.gpus[g].semaphores.push_back({0});
    const std::uint32_t a = b.tb(g), c = b.tb(g);
    b.add(g, a, copy(local(Buffer::input, 0), local(Buffer::scratch, 0))).add(g, a, nop());
    Op release;
    release.kind = OpKind::sem_release;
    release.semaphore_ids = {0};
    b.add(g, a, release);
    Op acquire = release;
    acquire.kind = OpKind::sem_acquire;
    handshake(b, g, c, 1 - g);
    b.add(g, c, acquire).add(g, c, nop());
    b.add(g, c, copy(local(Buffer::scratch, 0), local(Buffer::output, g)));
    b.add(g, c, put(local(Buffer::scratch, 0), remote(g, 1 - g, Buffer::output, g)));
    b.add(g, c, nop()).add(g, c, signal(g, 1 - g)).add(g, c, wait(g, 1 - g));
  }
  const verify::Report r = judge(b.plan);
  INFO(r.broken_claims(true));
  CHECK(r.verdict() == verify::Verdict::pass);
  b.plan.gpus[0].threadblocks[0].ops.pop_back();  // no release
  const std::optional<ExecutionFault> never =
      first(faults(b.plan), ExecutionFaultKind::never_released);
  REQUIRE(never);
  CHECK(never->explanation.find("acquires semaphore 0") != std::string::npos);
}

TEST_CASE(
    "mscclpp: a barrier joins its threadblocks, and one short of num_threadblocks never "
    "completes") {
  Builder b("allgather", 2, 1, 2, 1);
  Op barrier;
  barrier.kind = OpKind::barrier;
  barrier.barrier_id = 0;
  barrier.num_threadblocks = 2;
  for (std::uint32_t g = 0; g < 2; ++g) {
    const std::uint32_t a = b.tb(g), c = b.tb(g);
    b.add(g, a, copy(local(Buffer::input, 0), local(Buffer::scratch, 0))).add(g, a, barrier);
    handshake(b, g, c, 1 - g);
    b.add(g, c, barrier).add(g, c, copy(local(Buffer::scratch, 0), local(Buffer::output, g)));
    b.add(g, c, put(local(Buffer::scratch, 0), remote(g, 1 - g, Buffer::output, g)));
    b.add(g, c, nop()).add(g, c, signal(g, 1 - g)).add(g, c, wait(g, 1 - g));
  }
  CHECK(judge(b.plan).verdict() == verify::Verdict::pass);
  b.plan.gpus[1].threadblocks[0].ops.pop_back();
  const std::optional<ExecutionFault> never =
      first(faults(b.plan), ExecutionFaultKind::never_released);
  REQUIRE(never);
  CHECK(never->explanation.find("which 1 threadblocks of gpu 1 reach") != std::string::npos);
}

TEST_CASE("mscclpp: a pipeline runs two half-chunk iterations per chunk, a signal per iteration") {
  Builder b = alltoall();
  for (std::uint32_t g = 0; g < 2; ++g) {
    auto& ops = b.plan.gpus[g].threadblocks[0].ops;
    Op pipeline;
    pipeline.kind = OpKind::pipeline;
    pipeline.iter = IterContext{1 << 20, 1};
    pipeline.ops.assign(ops.begin() + 3, ops.end());  // put .. copy
    ops.erase(ops.begin() + 3, ops.end());
    ops.push_back(pipeline);
  }
  const Schedule s = lower(b.plan, "t.json");
  CHECK(s.header.imported->summary.find("2 cells per chunk") != std::string::npos);
  const verify::Report r = verify::verify(s, s.header.topology);
  INFO(r.broken_claims(true));
  CHECK(r.verdict() == verify::Verdict::pass);
  CHECK(s.phases.size() == 4);  // put, copy; put, copy: one half each
}

TEST_CASE("mscclpp: a get reads the peer where the executor does: offsets swapped") {
  // An allgather by gets: gpu g copies its input into output[g], signals, and once the peer's
  // copy is visible gets the peer's output[q] into its own output[q].
  const auto plan = [](std::uint32_t remote_index, std::uint32_t local_index) {
    Builder b("allgather", 2, 1, 2, 0);
    for (std::uint32_t g = 0; g < 2; ++g) {
      const std::uint32_t q = 1 - g, t = b.tb(g);
      b.add(g, t, copy(local(Buffer::input, 0), local(Buffer::output, g))).add(g, t, nop());
      b.add(g, t, signal(g, q)).add(g, t, wait(g, q)).add(g, t, nop());
      Op get;
      get.kind = OpKind::get;
      get.channel_type = ChannelType::memory;
      get.src = {remote(g, q, Buffer::output, remote_index == 9 ? q : remote_index)};
      get.dst = {local(Buffer::output, local_index == 9 ? q : local_index)};
      b.add(g, t, get).add(g, t, nop()).add(g, t, signal(g, q, true)).add(g, t, wait(g, q, true));
    }
    return b.plan;
  };
  const verify::Report same = judge(plan(9, 9));  // both indices q: what the DSL writes
  INFO(same.broken_claims(true));
  CHECK(same.verdict() == verify::Verdict::pass);
  // Remote index 0 and local index 1 on both gpus: the executor reads the peer's output[1] and
  // writes the local output[0], so gpu 0 overwrites its own block with gpu 1's and gpu 1 reads
  // its own block back: placement fails where the file's words would pass on gpu 1.
  const verify::Report swapped = judge(plan(0, 1));
  CHECK_FALSE(swapped.passed(verify::CheckId::placement));
}

TEST_CASE("mscclpp: what the model does not express is refused, naming the op") {
  Builder b = allgather();
  b.plan.gpus[1].threadblocks[0].ops[0].kind = OpKind::reduce;
  CHECK_THROWS_WITH_AS(
      lower(b.plan, "t.json"),
      "t.json: gpus[1].threadblocks[0].ops[0]: \"re\" reduces: not an alltoall or allgather op",
      InputError);
  b.plan.gpus[1].threadblocks[0].ops[0].kind = OpKind::multi_store;
  CHECK_THROWS_WITH_AS(lower(b.plan, "t.json"),
                       "t.json: gpus[1].threadblocks[0].ops[0]: \"gstore\" uses NVLS (switch "
                       "channels), which is not modelled",
                       InputError);
  Builder c = allgather();
  c.plan.collective = "allreduce";
  CHECK_THROWS_WITH_AS(
      lower(c.plan, "t.json"),
      "t.json: collective: \"allreduce\" is not modelled (alltoall and allgather are)", InputError);
}

TEST_CASE("mscclpp: a refusal inside a pipeline names the pipeline's op, after earlier pipelines") {
  Builder b = allgather();
  Op first;
  first.kind = OpKind::pipeline;
  first.iter = IterContext{1 << 20, 1};
  first.ops = {nop(), nop()};
  Op second = first;
  Op grouped = copy(local(Buffer::input, 0), local(Buffer::output, 0));
  grouped.group = GroupInfo{3, 2};  // tb_id not below tbg_size
  second.ops = {nop(), grouped};
  b.plan.gpus[0].threadblocks[0].ops = {first, second};
  CHECK_THROWS_WITH_AS(
      lower(b.plan, "t.json"),
      "t.json: gpus[0].threadblocks[0].ops[1].ops[1]: tbg_info: tb_id 3 of a group of 2",
      InputError);
}
