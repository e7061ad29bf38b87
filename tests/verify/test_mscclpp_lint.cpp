// lint mscclpp (verify/mscclpp_lint.hpp): each finding on a plan that has exactly that problem and
// its negative next to it; size coverage and names across plans; the report's MSCCL++ shape.
#include <doctest/doctest.h>

#include <algorithm>

#include "report/lint_report.hpp"
#include "verify/mscclpp_lint.hpp"

using namespace phasecheck;
using mscclpp::ChannelType;
using mscclpp::OpKind;
using verify::LintFinding;
using verify::MscclppLintInput;
using verify::Severity;

namespace {

mscclpp::BufferRef local(Buffer type, std::uint32_t index) {
  mscclpp::BufferRef r;
  r.type = type;
  r.index = index;
  r.size = 1;
  return r;
}

mscclpp::BufferRef remote(std::uint32_t buffer_id, std::uint32_t index) {
  mscclpp::BufferRef r;
  r.buffer_id = buffer_id;
  r.index = index;
  r.size = 1;
  return r;
}

mscclpp::Op on_channel(OpKind kind, std::vector<std::uint32_t> ids = {0}) {
  mscclpp::Op op;
  op.kind = kind;
  op.channel_type = ChannelType::memory;
  op.channel_ids = std::move(ids);
  return op;
}

mscclpp::Op plain(OpKind kind) {
  mscclpp::Op op;
  op.kind = kind;
  return op;
}

mscclpp::Op on_semaphores(OpKind kind, std::vector<std::uint32_t> ids) {
  mscclpp::Op op;
  op.kind = kind;
  op.semaphore_ids = std::move(ids);
  return op;
}

/// A 2-gpu out-of-place alltoall as the executor wants it: each gpu copies its own chunk, puts
/// the other into the peer's output over its one memory channel, then signals and waits. Every
/// channel and remote buffer is used; lint finds nothing in it.
mscclpp::Plan clean() {
  mscclpp::Plan p;
  p.name = "alltoall-2";
  p.collective = "alltoall";
  p.protocol = "Simple";
  for (std::uint32_t g = 0; g < 2; ++g) {
    const std::uint32_t peer = 1 - g;
    mscclpp::Gpu gpu;
    gpu.id = g;
    gpu.input_chunks = gpu.output_chunks = 2;
    gpu.channels = {{ChannelType::memory, {peer}}};
    gpu.remote_buffers = {{peer, Buffer::output, {ChannelType::memory}}};
    mscclpp::Threadblock tb;
    tb.channels = {{ChannelType::memory, std::nullopt, {0}}};
    tb.remote_buffer_refs = {{ChannelType::memory, {0}}};
    mscclpp::Op copy = plain(OpKind::copy);
    copy.src = {local(Buffer::input, g)};
    copy.dst = {local(Buffer::output, g)};
    mscclpp::Op put = on_channel(OpKind::put);
    put.src = {local(Buffer::input, peer)};
    put.dst = {remote(0, g)};
    tb.ops = {copy, put, plain(OpKind::nop), on_channel(OpKind::signal), on_channel(OpKind::wait)};
    gpu.threadblocks = {tb};
    p.gpus.push_back(gpu);
  }
  return p;
}

std::vector<LintFinding> lint_one(const mscclpp::Plan& p) {
  return verify::lint_mscclpp_file(MscclppLintInput{"t.json", p});
}

std::vector<std::string> codes(const std::vector<LintFinding>& findings) {
  std::vector<std::string> out;
  for (const LintFinding& f : findings) out.push_back(f.code);
  return out;
}

/// The one finding of `p`, which must have exactly one.
LintFinding only(const mscclpp::Plan& p) {
  const std::vector<LintFinding> f = lint_one(p);
  INFO(codes(f).size());
  REQUIRE(f.size() == 1);
  return f.front();
}

bool has(const LintFinding& f, const std::string& text) {
  return f.message.find(text) != std::string::npos;
}

std::vector<std::uint32_t> iota(std::uint32_t n) {
  std::vector<std::uint32_t> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

/// Gives gpu 0 `n` memory channels to gpu 1, all listed by its threadblock and used by signals of
/// at most 8 channels each (and gpu 1 as many back, so that nothing else is found).
void many_channels(mscclpp::Plan& p, std::uint32_t n) {
  for (std::uint32_t g = 0; g < 2; ++g) {
    mscclpp::Gpu& gpu = p.gpus[g];
    gpu.channels = {{ChannelType::memory, std::vector<std::uint32_t>(n, 1 - g)}};
    mscclpp::Threadblock& tb = gpu.threadblocks[0];
    tb.channels = {{ChannelType::memory, std::nullopt, iota(n)}};
    for (std::uint32_t first = 0; first < n; first += mscclpp::kMaxChannelsPerOp) {
      std::vector<std::uint32_t> ids;
      for (std::uint32_t c = first; c < std::min(n, first + mscclpp::kMaxChannelsPerOp); ++c)
        ids.push_back(c);
      tb.ops.push_back(on_channel(OpKind::signal, ids));
      tb.ops.push_back(on_channel(OpKind::wait, ids));
    }
  }
}

}  // namespace

TEST_CASE("lint mscclpp: a clean plan has no finding, and its size range is what it says") {
  CHECK(lint_one(clean()).empty());
  CHECK(verify::size_range(clean()) == verify::SizeRange{0, std::nullopt});
  mscclpp::Plan p = clean();
  p.min_message_size = p.max_message_size = 16;
  CHECK(verify::size_range(p) == verify::SizeRange{16, 16});
  p.min_message_size = 17;
  CHECK_FALSE(verify::size_range(p));
  p.min_message_size = 0;
  p.max_message_size = ~std::uint64_t{0} - 1;  // a limit, if a large one
  CHECK(verify::size_range(p) == verify::SizeRange{0, ~std::uint64_t{0} - 1});
}

TEST_CASE("lint mscclpp: plan fields") {
  SUBCASE("a protocol other than Simple and LL is an error; LL is not") {
    mscclpp::Plan p = clean();
    p.protocol = "LL128";
    const LintFinding f = only(p);
    CHECK(f.code == "protocol");
    CHECK(f.severity == Severity::error);
    CHECK(f.path == "protocol");
    CHECK(has(f, "\"LL128\": the executor knows Simple and LL"));
    p.protocol = "LL";
    CHECK(lint_one(p).empty());
  }
  SUBCASE("min_message_size above max_message_size is an error; equal is not") {
    mscclpp::Plan p = clean();
    p.min_message_size = 2048;
    p.max_message_size = 1024;
    const LintFinding f = only(p);
    CHECK(f.code == "inverted-size-range");
    CHECK(f.path == "min_message_size");
    CHECK(has(f, "min_message_size 2048 > max_message_size 1024"));
    p.max_message_size = 2048;
    CHECK(lint_one(p).empty());
  }
  SUBCASE("threads per block: 0 or beyond 1024 an error, not a warp multiple a warning") {
    mscclpp::Plan p = clean();
    for (const std::uint32_t n : {0u, 1056u}) {
      p.num_threads_per_block = n;
      const LintFinding f = only(p);
      CHECK(f.code == "threads-per-block");
      CHECK(f.severity == Severity::error);
    }
    p.num_threads_per_block = 100;
    const LintFinding f = only(p);
    CHECK(f.severity == Severity::warning);
    CHECK(has(f, "100 is not a multiple of 32"));
    for (const std::uint32_t n : {32u, 96u, 1024u}) {
      p.num_threads_per_block = n;
      CHECK(lint_one(p).empty());
    }
  }
  SUBCASE("a gpu with 0 input or output chunks makes the executor divide by zero") {
    mscclpp::Plan p = clean();
    p.gpus[1].output_chunks = 0;
    const LintFinding f = only(p);
    CHECK(f.code == "zero-chunks");
    CHECK(f.path == "gpus[1].output_chunks");
    CHECK(has(f, "a division by zero"));
    p.gpus[1].output_chunks = 1;
    CHECK(lint_one(p).empty());
  }
}

TEST_CASE("lint mscclpp: the executor's fixed arrays") {
  SUBCASE("17 memory channels in a threadblock overflow MAX_CHANNEL; 16 fit") {
    mscclpp::Plan p = clean();
    many_channels(p, 17);
    const std::vector<LintFinding> f = lint_one(p);
    CHECK(codes(f) == std::vector<std::string>{"too-many-channels", "too-many-channels"});
    CHECK(f[0].path == "gpus[0].threadblocks[0].channels");
    CHECK(has(f[0], "lists 17 memory channels"));
    p = clean();
    many_channels(p, 16);
    CHECK(lint_one(p).empty());
  }
  SUBCASE("17 remote buffers of one type in a threadblock; 16 fit") {
    for (const std::uint32_t n : {17u, 16u}) {
      mscclpp::Plan p = clean();
      mscclpp::Gpu& gpu = p.gpus[0];
      gpu.remote_buffers.assign(n, {1, Buffer::output, {ChannelType::memory}});
      gpu.threadblocks[0].remote_buffer_refs = {{ChannelType::memory, iota(n)}};
      gpu.threadblocks[0].ops[1].dst.clear();
      // A copy: the pushes below move the ops, a reference into them would dangle.
      const mscclpp::Op put = gpu.threadblocks[0].ops[1];
      for (std::uint32_t b = 0; b < n; b += mscclpp::kMaxBuffersPerOp) {
        mscclpp::Op more = put;
        for (std::uint32_t i = b; i < std::min(n, b + mscclpp::kMaxBuffersPerOp); ++i)
          more.dst.push_back(remote(i, 0));
        gpu.threadblocks[0].ops.push_back(more);
      }
      const std::vector<LintFinding> f = lint_one(p);
      if (n == 17) {
        REQUIRE(f.size() == 1);
        CHECK(f[0].code == "too-many-remote-buffers");
        CHECK(f[0].path == "gpus[0].threadblocks[0].remote_buffer_refs");
      } else {
        CHECK(f.empty());
      }
    }
  }
  SUBCASE("65 ops with a pipeline's counted exceed MAX_OPERATION; 64 do not") {
    mscclpp::Plan p = clean();
    mscclpp::Op pipeline = plain(OpKind::pipeline);
    pipeline.iter = mscclpp::IterContext{1024, 1};
    pipeline.ops.assign(55, plain(OpKind::nop));  // 5 ops + the pipeline + 55 = 61
    p.gpus[0].threadblocks[0].ops.push_back(pipeline);
    for (int i = 0; i < 3; ++i) p.gpus[0].threadblocks[0].ops.push_back(plain(OpKind::nop));
    CHECK(lint_one(p).empty());  // 64
    p.gpus[0].threadblocks[0].ops.push_back(plain(OpKind::nop));
    const LintFinding f = only(p);
    CHECK(f.code == "too-many-ops");
    CHECK(f.path == "gpus[0].threadblocks[0].ops");
    CHECK(has(f, "runs 65 ops"));
  }
  SUBCASE("per op: 9 channels, 11 buffers, 17 semaphores, barrier 16; one fewer fits") {
    mscclpp::Plan p = clean();
    many_channels(p, 9);
    mscclpp::Op wide = on_channel(OpKind::signal, iota(9));
    p.gpus[0].threadblocks[0].ops.push_back(wide);
    CHECK(codes(lint_one(p)) == std::vector<std::string>{"too-many-op-channels"});
    p.gpus[0].threadblocks[0].ops.back().channel_ids.pop_back();
    CHECK(lint_one(p).empty());

    p = clean();
    mscclpp::Op copy = p.gpus[0].threadblocks[0].ops[0];
    copy.src.assign(11, local(Buffer::input, 0));
    p.gpus[0].threadblocks[0].ops.push_back(copy);
    const LintFinding buffers = only(p);
    CHECK(buffers.code == "too-many-op-buffers");
    CHECK(buffers.path == "gpus[0].threadblocks[0].ops[5].src_buff");
    p.gpus[0].threadblocks[0].ops.back().src.pop_back();
    CHECK(lint_one(p).empty());

    p = clean();
    p.gpus[0].semaphores.assign(17, {});
    p.gpus[0].threadblocks[0].ops.push_back(on_semaphores(OpKind::sem_release, iota(17)));
    p.gpus[0].threadblocks[0].ops.push_back(on_semaphores(OpKind::sem_acquire, iota(17)));
    CHECK(codes(lint_one(p)) ==
          std::vector<std::string>{"too-many-op-semaphores", "too-many-op-semaphores"});
    p.gpus[0].semaphores.pop_back();
    for (int i : {5, 6}) p.gpus[0].threadblocks[0].ops[i].semaphore_ids = iota(16);
    CHECK(lint_one(p).empty());

    p = clean();
    mscclpp::Op barrier = plain(OpKind::barrier);
    barrier.barrier_id = mscclpp::kMaxBarriers;
    barrier.num_threadblocks = 1;
    p.gpus[0].threadblocks[0].ops.push_back(barrier);
    const LintFinding b = only(p);
    CHECK(b.code == "barrier-id");
    CHECK(b.path == "gpus[0].threadblocks[0].ops[5].barrier_id");
    p.gpus[0].threadblocks[0].ops.back().barrier_id = mscclpp::kMaxBarriers - 1;
    CHECK(lint_one(p).empty());
  }
}

TEST_CASE("lint mscclpp: what is set up for nothing") {
  SUBCASE("a gpu's channel no threadblock lists") {
    mscclpp::Plan p = clean();
    p.gpus[0].channels.push_back({ChannelType::port, {1}});
    const LintFinding f = only(p);
    CHECK(f.code == "unused-channel");
    CHECK(f.severity == Severity::warning);
    CHECK(f.path == "gpus[0].channels[1]");
    CHECK(has(f, "gpu 0's port channel 0 (to gpu 1) is listed by no threadblock"));
  }
  SUBCASE("a threadblock's channel none of its ops uses (a pipeline's ops count)") {
    mscclpp::Plan p = clean();
    p.gpus[0].channels[0].connected_to.push_back(1);
    mscclpp::Threadblock idle;  // reaches no buffer of gpu 1 either
    idle.id = 1;
    idle.channels = {{ChannelType::memory, std::nullopt, {1}}};
    idle.ops = {plain(OpKind::nop)};
    p.gpus[0].threadblocks.push_back(idle);
    const LintFinding f = only(p);
    CHECK(f.code == "unused-threadblock-channel");
    CHECK(f.path == "gpus[0].threadblocks[1].channels[0]");
    CHECK(has(f, "lists memory channel 1 (to gpu 1) as its memory channel 0"));
    mscclpp::Op pipeline = plain(OpKind::pipeline);
    pipeline.iter = mscclpp::IterContext{1024, 1};
    pipeline.ops = {on_channel(OpKind::signal, {0})};
    p.gpus[0].threadblocks[1].ops.push_back(pipeline);
    CHECK(lint_one(p).empty());
  }
  SUBCASE("a memory put uses no channel but names its peer; a port put uses channel 0") {
    mscclpp::Plan p = clean();
    std::vector<mscclpp::Op>& ops = p.gpus[0].threadblocks[0].ops;
    ops.erase(ops.begin() + 3, ops.end());  // no signal, no wait: only the put names channel 0
    REQUIRE(ops[1].channel_ids == std::vector<std::uint32_t>{0});
    CHECK(lint_one(p).empty());            // the put reaches gpu 1, the channel's peer
    p.gpus[0].remote_buffers[0].rank = 0;  // now it reaches gpu 0's own buffer (a loopback)
    const LintFinding f = only(p);
    CHECK(f.code == "unused-threadblock-channel");
    CHECK(f.path == "gpus[0].threadblocks[0].channels[0]");
    // Through a port channel the same put pushes through channel 0 (no channel_ids: index 0).
    p.gpus[0].channels[0].type = ChannelType::port;
    p.gpus[0].threadblocks[0].channels[0].type = ChannelType::port;
    p.gpus[0].remote_buffers[0].access_channel_types = {ChannelType::port};
    p.gpus[0].threadblocks[0].remote_buffer_refs[0].access = ChannelType::port;
    ops[1].channel_type = ChannelType::port;
    ops[1].channel_ids.clear();
    CHECK(lint_one(p).empty());
  }
  SUBCASE("a remote buffer no op reaches, listed or not") {
    mscclpp::Plan p = clean();
    p.gpus[1].remote_buffers.push_back({0, Buffer::scratch, {ChannelType::memory}});
    LintFinding f = only(p);
    CHECK(f.code == "unused-remote-buffer");
    CHECK(f.path == "gpus[1].remote_buffers[1]");
    CHECK(has(f, "(gpu 0's scratch) is listed by no threadblock"));
    p.gpus[1].threadblocks[0].remote_buffer_refs[0].remote_buffer_ids.push_back(1);
    f = only(p);
    CHECK(has(f, "listed by threadblocks but named by no op"));
    p.gpus[1].threadblocks[0].ops[1].dst.push_back(remote(1, 0));
    CHECK(lint_one(p).empty());
  }
  SUBCASE("a remote buffer named through the other channel type is not reached") {
    mscclpp::Plan p = clean();
    p.gpus[0].remote_buffers[0].access_channel_types.push_back(ChannelType::port);
    p.gpus[0].threadblocks[0].remote_buffer_refs = {{ChannelType::port, {0}}};
    CHECK(codes(lint_one(p)) == std::vector<std::string>{"unused-remote-buffer"});
  }
  SUBCASE("a semaphore no op names") {
    mscclpp::Plan p = clean();
    p.gpus[1].semaphores.push_back({1});
    const LintFinding f = only(p);
    CHECK(f.code == "unused-semaphore");
    CHECK(f.path == "gpus[1].semaphores[0]");
  }
}

TEST_CASE("lint mscclpp: semaphores whose count drifts from call to call") {
  mscclpp::Plan p = clean();
  p.gpus[0].semaphores = {{0}};
  p.gpus[0].threadblocks.push_back({});
  std::vector<mscclpp::Op>& first = p.gpus[0].threadblocks[0].ops;
  std::vector<mscclpp::Op>& second = p.gpus[0].threadblocks[1].ops;
  SUBCASE("released in one threadblock, acquired in another, once each: balanced") {
    first.push_back(on_semaphores(OpKind::sem_release, {0}));
    second.push_back(on_semaphores(OpKind::sem_acquire, {0}));
    CHECK(lint_one(p).empty());
  }
  SUBCASE("acquired, never released") {
    second.push_back(on_semaphores(OpKind::sem_acquire, {0}));
    const LintFinding f = only(p);
    CHECK(f.code == "semaphore-balance");
    CHECK(f.severity == Severity::warning);
    CHECK(f.path == "gpus[0].semaphores[0]");
    CHECK(has(f, "acquired but never released"));
  }
  SUBCASE("released, never acquired") {
    first.push_back(on_semaphores(OpKind::sem_release, {0}));
    CHECK(has(only(p), "released but never acquired"));
  }
  SUBCASE("released twice, acquired once per call") {
    first.push_back(on_semaphores(OpKind::sem_release, {0}));
    first.push_back(on_semaphores(OpKind::sem_release, {0}));
    second.push_back(on_semaphores(OpKind::sem_acquire, {0}));
    CHECK(has(only(p), "acquired 1 and released 2 times per call: its count drifts by +1"));
  }
  SUBCASE("counts inside a pipeline depend on the size: only never/never is judged") {
    mscclpp::Op pipeline = plain(OpKind::pipeline);
    pipeline.iter = mscclpp::IterContext{1024, 1};
    pipeline.ops = {on_semaphores(OpKind::sem_release, {0}),
                    on_semaphores(OpKind::sem_release, {0})};
    first.push_back(pipeline);
    second.push_back(on_semaphores(OpKind::sem_acquire, {0}));
    CHECK(lint_one(p).empty());
  }
}

TEST_CASE("lint mscclpp: reuse_resources and scratch slots of the fixed 64 MiB") {
  // 4 scratch chunks: slots of 16 MiB; 2 input chunks: sizes above 32 MiB outgrow them.
  constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
  mscclpp::Plan p = clean();
  p.reuse_resources = true;
  for (mscclpp::Gpu& gpu : p.gpus) gpu.scratch_chunks = 4;
  mscclpp::Op to_scratch = plain(OpKind::copy);
  to_scratch.src = {local(Buffer::input, 0)};
  to_scratch.dst = {local(Buffer::scratch, 3)};
  SUBCASE("a copy into scratch outside a pipeline, sizes without limit: a warning") {
    p.gpus[1].threadblocks[0].ops.push_back(to_scratch);
    const LintFinding f = only(p);
    CHECK(f.code == "reuse-scratch");
    CHECK(f.severity == Severity::warning);
    CHECK(f.path == "gpus[1].threadblocks[0].ops[5]");
    CHECK(has(f,
              "a slot of 16777216 bytes for each of its 4 scratch chunks; from message size "
              "33554433 on"));
    CHECK(has(f, "outside a pipeline"));
  }
  SUBCASE("double scratch halves the slots") {
    p.use_double_scratch_buffer = true;
    p.max_message_size = 32 * kMiB;
    p.gpus[1].threadblocks[0].ops.push_back(to_scratch);
    CHECK(has(only(p), "a slot of 8388608 bytes"));
  }
  SUBCASE("sizes up to 2 slots, or no reuse_resources: nothing") {
    p.gpus[1].threadblocks[0].ops.push_back(to_scratch);
    p.max_message_size = 32 * kMiB;
    CHECK(lint_one(p).empty());
    p.max_message_size = ~std::uint64_t{0};
    p.reuse_resources = false;
    CHECK(lint_one(p).empty());
  }
  SUBCASE("a peer's scratch reached by a put counts") {
    p.gpus[0].remote_buffers[0].type = Buffer::scratch;
    const LintFinding f = only(p);
    CHECK(f.code == "reuse-scratch");
    CHECK(f.path == "gpus[0].threadblocks[0].ops[1]");
  }
  SUBCASE("in a pipeline: units that divide the slot wrap cleanly, others cross") {
    mscclpp::Op pipeline = plain(OpKind::pipeline);
    pipeline.iter = mscclpp::IterContext{kMiB, 1};
    pipeline.ops = {to_scratch};
    p.gpus[0].threadblocks[0].ops.push_back(pipeline);
    CHECK(lint_one(p).empty());
    p.gpus[0].threadblocks[0].ops.back().iter->unit_size = 3 * kMiB;
    LintFinding f = only(p);
    CHECK(f.path == "gpus[0].threadblocks[0].ops[5].ops[0]");
    CHECK(has(f, "units of 3145728 bytes, which the slot is not a multiple of"));
    p.gpus[0].threadblocks[0].ops.back().iter->unit_size = 32 * kMiB;
    CHECK(has(only(p), "larger than a slot"));
  }
}

namespace {

verify::LintReport lint_all(std::vector<std::pair<std::string, mscclpp::Plan>> files) {
  std::vector<MscclppLintInput> in;
  for (auto& [name, p] : files) in.push_back({name, std::move(p)});
  return verify::lint_mscclpp(in);
}

mscclpp::Plan ranged(std::string name, std::uint64_t min, std::uint64_t max) {
  mscclpp::Plan p = clean();
  p.name = std::move(name);
  p.min_message_size = min;
  p.max_message_size = max;
  return p;
}

constexpr std::uint64_t kNoLimit = ~std::uint64_t{0};

}  // namespace

TEST_CASE("lint mscclpp: size coverage and names across plans") {
  SUBCASE("adjacent ranges: no finding; the group lists the plans by min_message_size") {
    const verify::LintReport r =
        lint_all({{"b.json", ranged("b", 1024, kNoLimit)}, {"a.json", ranged("a", 0, 1023)}});
    CHECK(r.findings.empty());
    CHECK(r.tool == verify::LintTool::mscclpp);
    REQUIRE(r.coverage.size() == 1);
    REQUIRE(r.coverage[0].claims.size() == 2);
    CHECK(r.coverage[0].claims[0].file == "a.json");
    CHECK(r.coverage[0].claims[1].range == verify::SizeRange{1024, std::nullopt});
    CHECK(r.coverage[0].collective == "alltoall");
    CHECK(r.coverage[0].ngpus == 2);
    CHECK_FALSE(r.coverage[0].in_place);
  }
  SUBCASE("ranges that share one size overlap (both bounds inclusive, as matchExecutionPlan)") {
    const verify::LintReport r =
        lint_all({{"a.json", ranged("a", 0, 1024)}, {"b.json", ranged("b", 1024, kNoLimit)}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].code == "overlap");
    CHECK(r.findings[0].message ==
          "b.json and a.json both claim sizes [1024, 1024] (alltoall, 2 gpus, out-of-place): "
          "mscclpp's selector takes whichever it meets first in its hash map of plans");
    CHECK(r.verdict() == verify::Verdict::fail);
  }
  SUBCASE("a gap between two ranges is a warning") {
    const verify::LintReport r =
        lint_all({{"a.json", ranged("a", 4096, 8191)}, {"b.json", ranged("b", 65536, kNoLimit)}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].code == "gap");
    CHECK(r.findings[0].severity == Severity::warning);
    CHECK(r.findings[0].message.find("[8192, 65535]") != std::string::npos);
    CHECK(r.verdict() == verify::Verdict::pass);
  }
  SUBCASE("groups: collective, gpu count and in place are apart; an inverted range claims none") {
    mscclpp::Plan in_place = ranged("b", 0, kNoLimit);
    in_place.inplace = true;
    mscclpp::Plan gather = ranged("c", 0, kNoLimit);
    gather.collective = "allgather";
    mscclpp::Plan one = ranged("d", 0, kNoLimit);
    one.gpus.pop_back();
    const verify::LintReport r = lint_all({{"a.json", ranged("a", 0, kNoLimit)},
                                           {"b.json", in_place},
                                           {"c.json", gather},
                                           {"d.json", one},
                                           {"e.json", ranged("e", 10, 5)}});
    CHECK(codes(r.findings) == std::vector<std::string>{"inverted-size-range"});
    CHECK(r.coverage.size() == 4);
  }
  SUBCASE("two plans of one name: an error on the second; other names are not") {
    const verify::LintReport r = lint_all({{"a.json", ranged("same", 0, 1023)},
                                           {"b.json", ranged("other", 1024, 2047)},
                                           {"c.json", ranged("same", 2048, kNoLimit)}});
    REQUIRE(r.findings.size() == 1);
    CHECK(r.findings[0].code == "duplicate-name");
    CHECK(r.findings[0].file == "c.json");
    CHECK(r.findings[0].path == "name");
    CHECK(r.findings[0].message.find("c.json and a.json are both named \"same\"") !=
          std::string::npos);
  }
}

TEST_CASE("lint mscclpp's report: the place is the JSON path, the command lint mscclpp") {
  const verify::LintReport r =
      lint_all({{"a.json", ranged("a", 0, kNoLimit)}, {"b.json", ranged("b", 16, 16)}});
  verify::LintReport with_path = r;
  mscclpp::Plan bad = clean();
  bad.protocol = "LL128";
  with_path.findings = lint_one(bad);
  const std::string text = reports::render_lint(with_path, reports::ReportFormat::text);
  CHECK(text.rfind("FAIL  lint mscclpp: 2 files, 1 error, 0 warnings\n", 0) == 0);
  CHECK(text.find("  t.json: protocol: error [protocol] \"LL128\"") != std::string::npos);
  CHECK(text.find("mscclpp takes the first plan in its hash map") != std::string::npos);
  const std::string json = reports::render_lint(with_path, reports::ReportFormat::json);
  CHECK(json.find("\"command\": \"lint mscclpp\"") != std::string::npos);
  CHECK(json.find("\"path\": \"protocol\"") != std::string::npos);
  CHECK(json.find("\"line\"") == std::string::npos);
  CHECK(json.find("\"max_bytes\": null") != std::string::npos);
  const std::string junit = reports::render_lint(r, reports::ReportFormat::junit);
  CHECK(junit.find("<testsuite name=\"lint mscclpp\"") != std::string::npos);
  CHECK(junit.find("failures=\"1\"") != std::string::npos);  // a.json and b.json overlap
}
