// MSCCL++ execution plans: the reader, its refusals and the writer (io/mscclpp_plan.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/limits.hpp"
#include "core/topology.hpp"
#include "io/mscclpp_plan.hpp"

using namespace phasecheck;
using mscclpp::ChannelType;
using mscclpp::OpKind;

namespace {

const std::string kFixtures = std::string(PHASECHECK_SOURCE_DIR) + "/tests/mscclpp/";

mscclpp::Plan fixture(const std::string& name) {
  return io::read_mscclpp_plan_file(kFixtures + name);
}

/// The message parse_mscclpp_plan refuses `text` with (empty when it accepts it).
std::string refusal(const std::string& text) {
  try {
    io::parse_mscclpp_plan(text, "x.json");
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// A two-gpu plan with `ops` in gpu 0's only threadblock (channel 0 of both types reaches gpu 1;
/// remote buffer 0 is gpu 1's output by memory and by port; one semaphore).
std::string two_gpus(const std::string& ops) {
  const auto gpu = [&](int g, const std::string& tb_ops) {
    const std::string peer = std::to_string(1 - g);
    return R"({"id": )" + std::to_string(g) +
           R"(, "input_chunks": 2, "output_chunks": 2, "scratch_chunks": 2,
       "threadblocks": [{"id": 0, "ops": [)" +
           tb_ops + R"(],
         "channels": [{"channel_type": "memory", "channel_ids": [0]},
                      {"channel_type": "port", "channel_ids": [0]}],
         "remote_buffer_refs": [{"access_channel_type": "memory", "remote_buffer_ids": [0]},
                                {"access_channel_type": "port", "remote_buffer_ids": [0]}]}],
       "channels": [{"channel_type": "memory", "connected_to": [)" +
           peer + R"(]},
                    {"channel_type": "port", "connected_to": [)" +
           peer + R"(]}],
       "remote_buffers": [{"rank": )" +
           peer + R"(, "type": "o", "access_channel_types": ["memory", "port"]}],
       "semaphores": [{"init_value": 0}]})";
  };
  return R"({"name": "t", "collective": "alltoall", "protocol": "Simple", "inplace": false,
    "gpus": [)" +
         gpu(0, ops) + ", " + gpu(1, "") + "]}";
}

std::vector<std::string> plan_files(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(kFixtures + dir))
    if (e.path().extension() == ".json") names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("mscclpp plan: a 3-gpu alltoall is read with its channels, remote buffers and ops") {
  const mscclpp::Plan p = fixture("alltoall-3.json");
  CHECK(p.name == "alltoall-3");
  CHECK(p.collective == "alltoall");
  CHECK(p.protocol == "Simple");
  CHECK_FALSE(p.inplace);
  CHECK(p.max_message_size == ~std::uint64_t{0});
  REQUIRE(p.gpus.size() == 3);
  const mscclpp::Gpu& g = p.gpus[1];
  CHECK(g.id == 1);
  CHECK(g.input_chunks == 3);
  CHECK(g.scratch_chunks == 2);
  REQUIRE(g.channels.size() == 1);
  CHECK(g.channels[0] == mscclpp::Channel{ChannelType::memory, {0, 2}});
  REQUIRE(g.remote_buffers.size() == 2);
  CHECK(g.remote_buffers[1] == mscclpp::RemoteBuffer{2, Buffer::scratch, {ChannelType::memory}});
  CHECK(g.semaphores == std::vector<mscclpp::Semaphore>{{0}});
  REQUIRE(g.threadblocks.size() == 2);
  const mscclpp::Threadblock& tb = g.threadblocks[0];
  CHECK(tb.channels ==
        std::vector<mscclpp::ThreadblockChannels>{{ChannelType::memory, std::nullopt, {0, 1}}});
  REQUIRE(tb.ops.size() == 8);
  // put input[2] into gpu 2's scratch, at gpu 1's position among gpu 2's peers (1).
  const mscclpp::Op& put = tb.ops[1];
  CHECK(put.kind == OpKind::put);
  CHECK(put.channel_type == ChannelType::memory);
  CHECK(put.src == std::vector<mscclpp::BufferRef>{{Buffer::input, {}, {}, 2, 1}});
  CHECK(put.dst == std::vector<mscclpp::BufferRef>{{{}, 1u, {}, 1, 1}});
  CHECK(tb.ops[3].kind == OpKind::signal);
  CHECK(tb.ops[3].channel_ids == std::vector<std::uint32_t>{0, 1});
  CHECK(tb.ops[6].kind == OpKind::sem_release);
  CHECK(tb.ops[6].semaphore_ids == std::vector<std::uint32_t>{0});
  CHECK(tb.ops[7].kind == OpKind::barrier);
  CHECK(tb.ops[7].barrier_id == 0u);
  CHECK(tb.ops[7].num_threadblocks == 2u);
}

TEST_CASE("mscclpp plan: pipelines, packets, port channels and threadblock groups are read") {
  const mscclpp::Plan pipeline = fixture("alltoall-pipeline-2.json");
  const mscclpp::Op& pipe = pipeline.gpus[0].threadblocks[0].ops.at(2);
  CHECK(pipe.kind == OpKind::pipeline);
  CHECK(pipe.iter == mscclpp::IterContext{1024, 1});
  REQUIRE(pipe.ops.size() == 5);
  CHECK(pipe.ops[0].kind == OpKind::put);
  CHECK(pipe.ops[3].kind == OpKind::wait);

  const mscclpp::Plan packets = fixture("allgather-packets-2.json");
  CHECK(packets.protocol == "LL");
  CHECK(packets.inplace);
  CHECK(packets.use_double_scratch_buffer);
  const auto& ops = packets.gpus[1].threadblocks[0].ops;
  REQUIRE(ops.size() == 2);
  CHECK(ops[0].kind == OpKind::put_packets);
  CHECK(ops[1].kind == OpKind::unpack_packets);
  CHECK(ops[1].src == std::vector<mscclpp::BufferRef>{{Buffer::scratch, {}, {}, 0, 1}});

  const mscclpp::Plan port = fixture("alltoall-port-2.json");
  const auto& port_ops = port.gpus[0].threadblocks[0].ops;
  CHECK(port.gpus[0].channels[0].type == ChannelType::port);
  CHECK(port_ops[2].kind == OpKind::put);
  CHECK(port_ops[2].channel_type == ChannelType::port);
  CHECK(port_ops[2].channel_ids == std::vector<std::uint32_t>{0});
  CHECK(port_ops[4].kind == OpKind::flush);

  const mscclpp::Plan groups = fixture("allgather-2.json");
  const auto& halves = groups.gpus[0].threadblocks;
  REQUIRE(halves.size() == 2);
  CHECK(halves[0].ops[0].group == mscclpp::GroupInfo{0, 2});
  CHECK(halves[1].ops[0].group == mscclpp::GroupInfo{1, 2});
  CHECK(halves[1].channels.empty());
}

TEST_CASE(
    "mscclpp plan: fields the executor defaults take its defaults, and unknown keys are ignored") {
  const std::string minimal =
      R"({"name": "m", "collective": "allgather", "protocol": "LL", "inplace": true,
          "dsl_version": "9.9", "gpus": [{"id": 0, "input_chunks": 1, "output_chunks": 1,
          "scratch_chunks": 0, "threadblocks": [], "channels": [], "remote_buffers": [],
          "future_key": {"a": [1, 2]}}]})";
  const mscclpp::Plan p = io::parse_mscclpp_plan(minimal, "m.json");
  CHECK_FALSE(p.reuse_resources);
  CHECK_FALSE(p.use_double_scratch_buffer);
  CHECK(p.num_threads_per_block == 1024);
  CHECK(p.buffer_alignment == 16);
  CHECK(p.min_message_size == 0);
  CHECK(p.max_message_size == ~std::uint64_t{0});
  CHECK(p.gpus.at(0).semaphores.empty());
}

TEST_CASE("mscclpp plan: a buffer index beyond the declared chunks is read (the model faults it)") {
  const mscclpp::Plan p = io::parse_mscclpp_plan(
      two_gpus(R"({"name": "copy", "src_buff": [{"type": "i", "index": 7, "size": 3}],
                   "dst_buff": [{"type": "o", "index": 0, "size": 1}]})"),
      "x.json");
  CHECK(p.gpus[0].threadblocks[0].ops.at(0).src.at(0).index == 7);
}

TEST_CASE("mscclpp plan: written and read back it is equal, and written again the same bytes") {
  const std::vector<std::string> names = plan_files("");
  REQUIRE(names.size() >= 5);
  for (const std::string& name : names) {
    CAPTURE(name);
    const mscclpp::Plan p = fixture(name);
    const std::string written = io::mscclpp_plan_to_json(p);
    const mscclpp::Plan back = io::parse_mscclpp_plan(written, "written.json");
    CHECK(back == p);
    CHECK(io::mscclpp_plan_to_json(back) == written);
    // The fixtures are in the DSL's layout: the writer gives their bytes back.
    CHECK(written == read_input(kFixtures + name));
  }
}

TEST_CASE("mscclpp plan: recognised by its keys, not by a parse") {
  CHECK(io::looks_like_mscclpp_plan(read_input(kFixtures + "alltoall-3.json")));
  CHECK(io::looks_like_mscclpp_plan(R"( {"name": "x", "gpus": [{"format": 1}]})"));
  CHECK(io::looks_like_mscclpp_plan("\xEF\xBB\xBF{\"gpus\" : []}"));
  CHECK(io::looks_like_mscclpp_plan(R"({"a": "}{\"format\":", "gpus": []})"));
  CHECK_FALSE(io::looks_like_mscclpp_plan(R"({"format": "phasecheck.schedule/3", "gpus": []})"));
  // Decided at "gpus": a prefix of a long plan is enough (pipeline/read_schedule.cpp reads one).
  CHECK(io::looks_like_mscclpp_plan(R"({"gpus": [], "format": "x"})"));
  CHECK_FALSE(io::looks_like_mscclpp_plan(R"({"name": "gpus", "x": {"gpus": 1}})"));
  CHECK_FALSE(io::looks_like_mscclpp_plan(R"([{"gpus": []}])"));
  CHECK_FALSE(io::looks_like_mscclpp_plan("<algo/>"));
  CHECK(io::looks_like_mscclpp_plan(R"({"name": "x", "gpus": [)"));
  CHECK_FALSE(io::looks_like_mscclpp_plan(R"({"name": "x", "protocol": )"));
  CHECK_FALSE(io::looks_like_mscclpp_plan(""));
}

TEST_CASE("mscclpp plan: every file in tests/mscclpp/bad is refused, naming the JSON path") {
  struct Case {
    const char* name;
    const char* expected;
  };
  const std::string t0 = "gpus[0].threadblocks[0]";
  const std::vector<Case> cases = {
      {"barrier-id-16", "ops[6].barrier_id: 16 is too large (at most 15)"},
      {"barrier-without-id", "ops[6]: missing \"barrier_id\""},
      {"buffer-alignment-zero", "buffer_alignment: 0 is too small (at least 1)"},
      {"buffer-named-by-type-and-id",
       "ops[1].dst_buff[0]: a buffer is named by exactly one of type, buffer_id and "
       "switch_channel_id"},
      {"channel-id-beyond-uint32", "ops[3].channel_ids[0]: 4294967296 is too large"},
      {"channel-ids-without-channel-type", "ops[3].channel_ids: channel_ids without channel_type"},
      {"channel-type-none-on-gpu",
       "gpus[0].channels[0].channel_type: a channel of type \"none\" connects nothing"},
      {"chunks-negative", "gpus[0].input_chunks: expected a non-negative integer, got a negative"},
      {"duplicate-key", "the key \"name\" appears twice in one object"},
      {"gpu-id-not-its-position", "gpus[1].id: gpu id 0 at position 1"},
      {"gpus-is-an-object", "gpus: expected an array, got an object"},
      {"index-not-an-integer", "ops[0].src_buff[0].index: expected a non-negative integer"},
      {"index-plus-size-beyond-slots",
       "ops[0].src_buff[0]: index 1073741823 + size 1 passes 1073741823 slots"},
      {"inplace-is-a-string", "inplace: expected true or false, got a string"},
      {"missing-gpus", "x.json: missing \"gpus\""},
      {"missing-scratch-chunks", "gpus[1]: missing \"scratch_chunks\""},
      {"missing-threadblock-channels", "gpus[0].threadblocks[0]: missing \"channels\""},
      {"nested-too-deep", "nested deeper than 64 levels"},
      {"no-gpus", "gpus: a plan has at least one gpu"},
      {"not-an-object", "x.json: expected an object, got an array"},
      {"num-threads-per-block-2048", "num_threads_per_block: 2048 is too large (at most 1024)"},
      {"op-buffer-id-beyond-threadblock",
       "ops[1].dst_buff[0].buffer_id: remote buffer 1 is beyond threadblock 0's 1 remote buffer "
       "reached by memory channels"},
      {"op-channel-beyond-threadblock-channels",
       "ops[3].channel_ids[0]: channel 1 is beyond threadblock 0's 1 memory channel"},
      {"ops-on-a-copy", "ops[0].ops: only a pipeline has ops (this is \"copy\")"},
      {"peer-beyond-gpus",
       "gpus[0].channels[0].connected_to[0]: gpu 5 is beyond the plan's 2 gpus"},
      {"peer-is-self", "gpus[0].channels[0].connected_to[0]: gpu 0 has a channel to itself"},
      {"pipeline-inside-pipeline",
       "ops[6].ops[0]: a pipeline inside a pipeline (the executor runs pipelines one level deep)"},
      {"pipeline-unit-size-zero", "ops[6].iter_context.unit_size: 0 is too small (at least 1)"},
      {"pipeline-without-iter-context", "ops[6]: missing \"iter_context\""},
      {"remote-buffer-not-reached-by-port",
       "remote_buffer_refs[0].remote_buffer_ids[0]: remote buffer 0 is not reached by port "
       "channels"},
      {"remote-buffer-rank-beyond-gpus",
       "gpus[1].remote_buffers[0].rank: gpu 2 is beyond the plan's 2 gpus"},
      {"remote-buffer-ref-beyond-gpu",
       "remote_buffer_refs[0].remote_buffer_ids[0]: remote buffer 1 is beyond gpu 0's 1 remote "
       "buffer"},
      {"semaphore-init-negative", "gpus[0].semaphores[0].init_value: expected a non-negative"},
      {"semaphore-not-declared",
       "ops[6].semaphore_ids[0]: semaphore 0 is not declared (gpu 0 has 0 semaphores)"},
      {"size-zero", "ops[0].dst_buff[0].size: an op moves at least one chunk (size 0)"},
      {"syntax-error", "x.json:54:13: invalid JSON: syntax error while parsing object key"},
      {"tbg-size-zero", "ops[0].tbg_info.tbg_size: 0 is too small (at least 1)"},
      {"tbg-tb-id-not-below-size", "ops[0].tbg_info.tb_id: tb_id 2 is not below tbg_size 2"},
      {"threadblock-17-memory-channels",
       "gpus[0].threadblocks[0].channels[0]: threadblock 0 has 17 memory channels; the executor "
       "holds at most 16"},
      {"threadblock-channel-beyond-gpu-channels",
       "channels[0].channel_ids[0]: channel 1 is beyond gpu 0's 1 memory channel"},
      {"threadblock-id-beyond-count",
       "gpus[0].threadblocks[0].id: threadblock id 3 is beyond the gpu's 1 threadblock"},
      {"threadblock-id-twice",
       "gpus[0].threadblocks[1].id: threadblock id 0 appears twice (threadblocks[0] has it)"},
      {"threadblock-ids-out-of-order",
       "gpus[0].threadblocks[0].id: threadblock id 1 at position 0"},
      {"threadblock-runs-65-ops",
       "ops[64]: threadblock 0 runs 65 ops here (a pipeline's ops counted); the executor runs at "
       "most 64"},
      {"unknown-buffer-type", "ops[0].src_buff[0].type: unknown buffer type \"x\" (i, o or s)"},
      {"unknown-channel-type", "ops[3].channel_type: unknown channel type \"nvlink\""},
      {"unknown-op", "ops[2].name: unknown op \"fence\""},
  };
  // Every file has its expected message, and every message its file.
  std::set<std::string> expected_files;
  for (const Case& c : cases) expected_files.insert(std::string(c.name) + ".json");
  const std::vector<std::string> files = plan_files("bad");
  CHECK(std::set<std::string>(files.begin(), files.end()) == expected_files);
  std::size_t refused = 0;
  for (const Case& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const std::string text = read_input(kFixtures + "bad/" + c.name + ".json");
    const std::string message = refusal(text);
    CHECK(message.starts_with("x.json"));
    CHECK_MESSAGE(message.find(c.expected) != std::string::npos, message);
    refused += !message.empty();
  }
  CHECK(refused == cases.size());
  // The JSON path of an op names the gpu and the threadblock.
  CHECK(refusal(read_input(kFixtures + "bad/unknown-op.json")) ==
        "x.json: " + t0 + ".ops[2].name: unknown op \"fence\"");
}

TEST_CASE("mscclpp plan: refusals name the op's path, inside a pipeline too") {
  const auto inline_refusal = [](const std::string& ops) { return refusal(two_gpus(ops)); };
  CHECK(inline_refusal(R"({"name": "signal", "channel_ids": [0, 1], "channel_type": "port"})") ==
        "x.json: gpus[0].threadblocks[0].ops[0].channel_ids[1]: channel 1 is beyond "
        "threadblock 0's 1 port channel");
  CHECK(inline_refusal(R"({"name": "nop"}, {"name": "pipeline", "iter_context":
          {"unit_size": 64, "num_chunks": 1}, "ops": [{"name": "nop"}, {"name": "sem_acquire",
          "semaphore_ids": [1]}]})") ==
        "x.json: gpus[0].threadblocks[0].ops[1].ops[1].semaphore_ids[0]: semaphore 1 is not "
        "declared (gpu 0 has 1 semaphore)");
  CHECK(inline_refusal(R"({"name": "copy", "src_buff": [{"buffer_id": 0, "index": 0,
          "size": 1}], "dst_buff": [{"type": "o", "index": 0, "size": 1}]})") ==
        "x.json: gpus[0].threadblocks[0].ops[0].src_buff[0].buffer_id: a remote buffer needs "
        "the op's channel_type, memory or port");
  CHECK(inline_refusal(R"({"name": "wait", "iter_context": {"unit_size": 1, "num_chunks": 1}})") ==
        "x.json: gpus[0].threadblocks[0].ops[0].iter_context: only a pipeline has iter_context "
        "(this is \"wait\")");
  CHECK(inline_refusal(R"({"name": 3})") ==
        "x.json: gpus[0].threadblocks[0].ops[0].name: expected a string, got a number");
  CHECK(inline_refusal(R"({"name": "bar\u0001rier"})") ==
        "x.json: gpus[0].threadblocks[0].ops[0].name: unknown op \"bar\\x01rier\"");
  CHECK(inline_refusal(R"({"name": "nop"})").empty());
}

TEST_CASE("mscclpp plan: JSON errors say where, as nlohmann's parser finds them") {
  // simdjson refuses these; the message comes from a second reading that knows positions.
  CHECK(refusal(two_gpus(R"({"name": "copy", "src_buff": [{"type": "i", "index":
          18446744073709551616, "size": 1}]})")) ==
        "x.json:4:11: invalid JSON: number out of range: 18446744073709551616");
  CHECK(refusal(R"({"gpus": [-9223372036854775809]})") ==
        "x.json:1:11: invalid JSON: number out of range: -9223372036854775809");
  CHECK(refusal(R"({"gpus": [1e400]})") == "x.json:1:11: invalid JSON: number out of range: 1e400");
  CHECK(refusal("{\"gpus\": [\n  }") ==
        "x.json:2:3: invalid JSON: syntax error while parsing value - unexpected '}'; expected "
        "'[', '{', or a literal");
  CHECK(refusal("").starts_with("x.json:1:1: invalid JSON"));
  CHECK(refusal(R"({"gpus": [], "x": {"a": 1, "a": 2}})") ==
        "x.json: the key \"a\" appears twice in one object");
  // 64 levels are read (the unknown key is ignored); 65 are not.
  const auto nested = [](int levels) {
    return two_gpus(R"({"name": "nop", "deep": )" + std::string(levels - 7, '[') +
                    std::string(levels - 7, ']') + "}");
  };
  CHECK(refusal(nested(64)).empty());
  CHECK(refusal(nested(65)) == "x.json: nested deeper than 64 levels");
}

TEST_CASE("mscclpp plan: memory is charged before the document and the plan are built") {
  const std::string text = read_input(kFixtures + "alltoall-3.json");
  const Limits saved = limits();
  Limits tight = saved;
  tight.max_memory_bytes = text.size() * 4;
  set_limits(tight);
  const std::string message = refusal(text);
  set_limits(saved);
  CHECK(message.find("x.json: the JSON document of a plan of") != std::string::npos);
  CHECK(message.find("more than the memory limit") != std::string::npos);
  CHECK(refusal(text).empty());
  // A key twice, with no memory for the second reading: the message says what, not where.
  const std::string twice = R"({"gpus": [], "a": 1, "a": 2})";
  tight.max_memory_bytes = twice.size() * 16;
  set_limits(tight);
  const std::string without_position = refusal(twice);
  set_limits(saved);
  CHECK(without_position == "x.json: a key appears twice in one object");

  // Room for the document but not for the plan built from it.
  tight.max_memory_bytes = text.size() * 11;
  set_limits(tight);
  const std::string plan_message = refusal(text);
  set_limits(saved);
  CHECK_MESSAGE(plan_message.starts_with("x.json: a plan of 42 ops needs "), plan_message);
}

TEST_CASE("mscclpp plan: gpus and ops are counted before any is read") {
  std::string gpus = R"({"name": "t", "collective": "alltoall", "protocol": "Simple",
                         "inplace": false, "gpus": [0)";
  for (std::uint32_t i = 0; i < kMaxRanks; ++i) gpus += ",0";
  CHECK(refusal(gpus + "]}") == "x.json: gpus: more than 1048576 gpus");
  // Ops are counted in the document, whatever they hold: the limit holds before any is read.
  std::string ops = "0";
  for (int i = 0; i < 4'000'000; ++i) ops += ",0";
  CHECK(refusal(two_gpus(ops)) == "x.json: gpus: 4000001 ops, more than 4000000 in one file");
  CHECK(refusal(two_gpus(ops.substr(2))) ==
        "x.json: gpus[0].threadblocks[0].ops[0]: expected an object, got a number");
}
