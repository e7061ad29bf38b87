// MSCCL++ execution plans (issue 39): a plan read from its JSON, modelled over consecutive calls
// (lanes, happens-before, the race check) and verified, as `phasecheck verify PLAN.json` does.
// Two plans, neither a third-party file:
//   - an 8-gpu alltoall in place with pipelines, built here in the shape of the DSL's
//     alltoall_pipeline example (a sender and a receiver threadblock per peer and chunk, the
//     handshake, put / signal / sem_release and sem_acquire / wait / copy in pipelines), k chunks
//     per pair: k = 10 is 10,640 ops and about 1.9 MB of JSON, the size of the DSL's pipelined
//     alltoall_ring example;
//   - bruck-index on 64 gpus exported by phasecheck itself (programs/mscclpp_export.hpp).
// The budgets: the 8-gpu plan read and verified in 0.5 s, the 64-gpu one in 5 s; race checking
// near-linear in ops (mscclpp_model/k: the same plan with k = 5, 10, 20, 40).
// Figures and commands: docs/performance.md, "MSCCL++ plans (issue 39)".
//
//   ./build/bench/phasecheck_bench --benchmark_filter=mscclpp --benchmark_counters_tabular=true

#include <benchmark/benchmark.h>

#include <map>

#include "core/mscclpp.hpp"
#include "io/mscclpp_plan.hpp"
#include "programs/mscclpp_export.hpp"
#include "schedules/registry.hpp"
#include "verify/mscclpp_execution.hpp"
#include "verify/verifier.hpp"

using namespace phasecheck;
using namespace phasecheck::mscclpp;

namespace {

Op named(OpKind kind) {
  Op op;
  op.kind = kind;
  return op;
}
Op on_channel(OpKind kind, std::uint32_t channel) {
  Op op = named(kind);
  op.channel_type = ChannelType::memory;
  op.channel_ids = {channel};
  return op;
}
Op semaphore(OpKind kind, std::uint32_t id) {
  Op op = named(kind);
  op.semaphore_ids = {id};
  return op;
}
Op pipeline(std::vector<Op> ops) {
  Op op = named(OpKind::pipeline);
  op.iter = IterContext{1u << 19, 1};
  op.ops = std::move(ops);
  return op;
}

/// The pipelined alltoall in place over `gpus` gpus with `k` chunks per pair. Gpu g's channels:
/// per peer q and chunk j, a handshake channel (2j) and a data channel (2j + 1) to q.
Plan pipelined_alltoall(std::uint32_t gpus, std::uint32_t k) {
  Plan plan;
  plan.name = "alltoall-pipeline-bench";
  plan.collective = "alltoall";
  plan.protocol = "Simple";
  plan.inplace = true;
  for (std::uint32_t g = 0; g < gpus; ++g) {
    Gpu gpu;
    gpu.id = g;
    gpu.input_chunks = gpu.output_chunks = gpus * k;
    gpu.scratch_chunks = (gpus - 1) * k;
    std::vector<std::uint32_t> peers;
    for (std::uint32_t q = 0; q < gpus; ++q)
      if (q != g) peers.push_back(q);
    Channel memory{ChannelType::memory, {}};
    for (std::uint32_t q : peers) {
      gpu.remote_buffers.push_back({q, Buffer::scratch, {ChannelType::memory}});
      for (std::uint32_t j = 0; j < 2 * k; ++j) memory.connected_to.push_back(q);
    }
    gpu.channels.push_back(memory);
    for (std::uint32_t qi = 0; qi < peers.size(); ++qi) {
      const std::uint32_t q = peers[qi];
      const std::uint32_t at_peer = g < q ? g : g - 1;  // this gpu's index among q's peers
      for (std::uint32_t j = 0; j < k; ++j) {
        const std::uint32_t handshake = (qi * k + j) * 2, data = handshake + 1;
        const std::uint32_t sem = static_cast<std::uint32_t>(gpu.semaphores.size());
        gpu.semaphores.push_back({0});
        Threadblock sender;
        sender.id = static_cast<std::uint32_t>(gpu.threadblocks.size());
        sender.channels = {{ChannelType::memory, std::nullopt, {handshake, data}}};
        sender.remote_buffer_refs = {{ChannelType::memory, {qi}}};
        Op put = named(OpKind::put);
        put.channel_type = ChannelType::memory;
        put.src = {{Buffer::input, std::nullopt, std::nullopt, q * k + j, 1}};
        put.dst = {{std::nullopt, 0, std::nullopt, at_peer * k + j, 1}};
        sender.ops = {
            named(OpKind::nop),
            on_channel(OpKind::relaxed_signal, 0),
            named(OpKind::nop),
            on_channel(OpKind::relaxed_wait, 0),
            named(OpKind::nop),
            pipeline({put, named(OpKind::nop), on_channel(OpKind::signal, 1), named(OpKind::nop),
                      semaphore(OpKind::sem_release, sem), named(OpKind::nop)})};
        gpu.threadblocks.push_back(sender);
        Threadblock receiver;
        receiver.id = static_cast<std::uint32_t>(gpu.threadblocks.size());
        receiver.channels = {{ChannelType::memory, std::nullopt, {data}}};
        Op copy = named(OpKind::copy);
        copy.src = {{Buffer::scratch, std::nullopt, std::nullopt, qi * k + j, 1}};
        copy.dst = {{Buffer::input, std::nullopt, std::nullopt, q * k + j, 1}};
        receiver.ops = {
            pipeline({named(OpKind::nop), semaphore(OpKind::sem_acquire, sem), named(OpKind::nop),
                      on_channel(OpKind::wait, 0), named(OpKind::nop), copy})};
        gpu.threadblocks.push_back(receiver);
      }
    }
    plan.gpus.push_back(gpu);
  }
  return plan;
}

std::uint64_t ops(const Plan& p) {
  std::uint64_t n = 0;
  for (const Gpu& g : p.gpus)
    for (const Threadblock& t : g.threadblocks)
      for (const Op& op : t.ops) n += 1 + op.ops.size();
  return n;
}

const std::string& pipelined_json(std::uint32_t k) {
  static std::map<std::uint32_t, std::string> texts;
  auto [it, fresh] = texts.try_emplace(k);
  if (fresh) it->second = io::mscclpp_plan_to_json(pipelined_alltoall(8, k));
  return it->second;
}

const std::string& exported_json() {
  static const std::string text = [] {
    const schedules::Algorithm& bruck = *schedules::find_algorithm("bruck-index");
    const ScheduleHeader header = schedules::make_header(bruck, FullyConnected(64, 63), {});
    const Schedule program = schedules::generate_program(bruck, header);
    return io::mscclpp_plan_to_json(programs::to_mscclpp(program, {}));
  }();
  return text;
}

/// What `phasecheck verify PLAN.json` does after reading the file: parse, model, every check.
void verify_text(benchmark::State& state, const std::string& text) {
  Plan p;
  for (auto _ : state) {
    p = io::parse_mscclpp_plan(text, "bench.json");
    const Schedule s = lower(p, "bench.json");
    const verify::Report r = verify::verify(s, s.header.topology);
    if (r.verdict() != verify::Verdict::pass) state.SkipWithError("the plan does not verify");
  }
  state.counters["gpus"] = static_cast<double>(p.gpus.size());
  state.counters["ops"] = static_cast<double>(ops(p));
  state.counters["kB"] = static_cast<double>(text.size()) / 1000.0;
}

void mscclpp_verify_8_pipelined(benchmark::State& state) { verify_text(state, pipelined_json(10)); }
BENCHMARK(mscclpp_verify_8_pipelined)->Unit(benchmark::kMillisecond);

void mscclpp_verify_64_exported(benchmark::State& state) { verify_text(state, exported_json()); }
BENCHMARK(mscclpp_verify_64_exported)->Unit(benchmark::kMillisecond)->Iterations(2);

/// The model and its checkers alone, the plan's size doubling: near-linear when the time per op
/// stays flat.
void mscclpp_model(benchmark::State& state) {
  const Plan p = pipelined_alltoall(8, static_cast<std::uint32_t>(state.range(0)));
  for (auto _ : state) {
    Schedule s = lower(p, "bench.json");
    if (!s.header.imported->faults.empty()) state.SkipWithError("the plan faults");
    benchmark::DoNotOptimize(s);
  }
  state.counters["ops"] = static_cast<double>(ops(p));
  state.counters["s/op"] =
      benchmark::Counter(static_cast<double>(ops(p)) * static_cast<double>(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(mscclpp_model)->Arg(5)->Arg(10)->Arg(20)->Arg(40)->Unit(benchmark::kMillisecond);

}  // namespace
