#include <doctest/doctest.h>

#include <sstream>

#include "core/error.hpp"
#include "io/json.hpp"
#include "io/schedule_binary.hpp"
#include "pipeline/read_schedule.hpp"
#include "schedules/registry.hpp"

using namespace phasecheck;

namespace {

std::string binary_of(const Schedule& s) {
  std::ostringstream out;
  io::BinaryScheduleWriter writer(out, s.header);
  for (const Phase& p : s.phases) writer.phase(p);
  writer.finish();
  return out.str();
}

Schedule generated(std::string_view algorithm, Topology model, Parameters params = {}) {
  return schedules::generate(*schedules::find_algorithm(algorithm), std::move(model),
                             std::move(params));
}

std::string error_of(const std::string& bytes) {
  try {
    pipeline::parse_schedule(bytes, "s.bin");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("binary stream: what the writer writes, the reader reads back, for every shape") {
  Parameters allgather;
  allgather.set("collective", "allgather");
  Parameters segmented;  // version 2: 3 parts per message
  segmented.set("bytes", "3000");
  segmented.set("block_size", "1000");
  const Topology tree = io::read_topology_file(std::string(PHASECHECK_SOURCE_DIR) +
                                               "/examples/faraj-yuan-fig1/topology.json");
  for (const Schedule& s : {generated("shift", FullyConnected(6, 1)),
                            generated("bruck-index", FullyConnected(8, 1)),  // forwarding
                            generated("bruck-concat", FullyConnected(5, 1), allgather),
                            generated("randomized-segmented", FullyConnected(4, 3), segmented),
                            generated("faraj-yuan", tree)}) {
    INFO(s.header.algorithm);
    const std::string bytes = binary_of(s);
    CHECK(bytes.substr(0, 4) == "PCSB");
    CHECK(bytes.size() < io::schedule_to_json(s).size());
    CHECK(pipeline::parse_schedule(bytes, "s.bin") ==
          pipeline::parse_schedule(io::schedule_to_json(s), "s.json"));
    CHECK(binary_of(pipeline::parse_schedule(bytes, "s.bin")) == bytes);  // same phases, same bytes
  }
}

TEST_CASE("binary stream: a stream cut anywhere is refused, naming the byte") {
  const std::string bytes = binary_of(generated("shift", FullyConnected(4, 1)));
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO(n);
    const std::string e = error_of(bytes.substr(0, n));
    CHECK(e.starts_with("s.bin"));
    CHECK(e != "no error");
  }
  CHECK(error_of(bytes.substr(0, bytes.size() - 3)) ==
        "s.bin: byte " + std::to_string(bytes.size() - 3) +
            ": the stream ends early, in the end record");
}

TEST_CASE("binary stream: the end record must count the phases, nothing may follow it") {
  std::string bytes = binary_of(generated("shift", FullyConnected(4, 1)));
  CHECK(error_of(bytes + "x").find("bytes after the end record") != std::string::npos);
  bytes[bytes.size() - 8] ^= 1;  // 4 phases (step 0 is the self copy) -> 5
  CHECK(error_of(bytes).find("the end record says 5 phases, the stream has 4") !=
        std::string::npos);
}

TEST_CASE("binary stream: bad magic, version, header and transfers are refused with their place") {
  const std::string good = binary_of(generated("shift", FullyConnected(4, 1)));
  std::string version = good;
  version[4] = 2;
  CHECK(error_of(version) == "s.bin: byte 4: version 2 (this phasecheck reads version 1)");
  std::string magic = good;
  magic[1] = 'X';
  CHECK(error_of(magic) == "s.bin: byte 0: not a binary schedule stream (magic PCSB expected)");
  std::string huge = good;
  huge[11] = 0x7F;  // a header length of about 2 GiB: refused before it is read
  CHECK(error_of(huge).find("s.bin: byte 8: a header of") != std::string::npos);
  // The first transfer's destination (after magic, version, length, header, label, count, src).
  const std::uint32_t header = static_cast<unsigned char>(good[8]) |
                               static_cast<unsigned char>(good[9]) << 8 |
                               static_cast<unsigned char>(good[10]) << 16;
  const std::size_t label = static_cast<unsigned char>(good[12 + header]);
  const std::size_t record = 12 + header + 4 + label + 4;
  std::string rank = good;
  rank[record + 4] = 9;  // dst 9 on 4 ranks
  CHECK(error_of(rank).starts_with("s.bin: byte " + std::to_string(record) +
                                   ": phases[0].transfers[0]: "));
}

TEST_CASE("binary stream: buffer programs stay JSON") {
  const ScheduleHeader h =
      schedules::make_header(*schedules::find_algorithm("bruck-index"), FullyConnected(4, 1), {});
  const Schedule program =
      schedules::generate_program(*schedules::find_algorithm("bruck-index"), h);
  std::ostringstream out;
  CHECK_THROWS_AS(io::BinaryScheduleWriter(out, program.header), InputError);
}

TEST_CASE("binary stream: a label that is not UTF-8 is refused, as in JSON") {
  Schedule s = generated("shift", FullyConnected(4, 1));
  s.phases[1].set_label("step \xff");
  const std::string e = error_of(binary_of(s));
  CHECK(e.find("phases[1]: the label is not UTF-8") != std::string::npos);
  CHECK(e.starts_with("s.bin: byte "));
}

TEST_CASE("binary stream: a header that is not a JSON object is refused, whatever it nests") {
  // Issue 33: a stream whose header is itself a stream, nested thousands deep, crashed the
  // reader (each level re-entered the format sniffing). The header is read as JSON only.
  const auto wrap = [](const std::string& inner) {
    std::string s = "PCSB";
    for (std::uint32_t v : {1u, static_cast<std::uint32_t>(inner.size())})
      for (int i = 0; i < 4; ++i) s += static_cast<char>((v >> (8 * i)) & 0xFF);
    return s + inner;
  };
  const std::string good = binary_of(generated("shift", FullyConnected(4, 1)));
  std::string nested = good;
  for (int level = 0; level < 5000; ++level) nested = wrap(nested);
  CHECK(error_of(nested) ==
        "s.bin: byte 12: the header is not a JSON object (a schedule document with \"phases\": [])");
  // One level is refused the same way: only the outer stream is ever read.
  CHECK(error_of(wrap(good)).starts_with("s.bin: byte 12: the header is not a JSON object"));
  CHECK(error_of(wrap("<algo/>")).starts_with("s.bin: byte 12: the header is not a JSON object"));
  CHECK(error_of(wrap("  [1, 2]")).starts_with("s.bin: byte 12: the header is not a JSON object"));
  CHECK(error_of(wrap("")).starts_with("s.bin: byte 12: the header is not a JSON object"));
  // A JSON header that is an object but not a schedule is still judged by the JSON reader.
  CHECK(error_of(wrap("{}")).starts_with("s.bin (header)"));
}

TEST_CASE("binary stream: version-4 tables, in place and an allgather with parts") {
  std::size_t checked = 0;
  Parameters allgather;
  allgather.set("collective", "allgather");
  for (Schedule s : {generated("bruck-index", FullyConnected(5, 1)),
                     generated("bruck-concat", FullyConnected(5, 1), allgather)}) {
    s.header.inplace = true;
    if (s.header.collective == Collective::allgather) {  // every contribution in 2 parts
      s.header.parts = 2;
      for (Phase& p : s.phases) {
        Phase both(p.label());
        for (const Transfer& t : p.transfers()) {
          std::vector<Block> blocks;
          for (Block b : p.blocks(t)) {
            blocks.push_back(b);
            b.part = 1;
            blocks.push_back(b);
          }
          both.add(t.src, t.dst, blocks);
        }
        p = both;
      }
    }
    INFO(s.header.algorithm);
    const std::string bytes = binary_of(s);
    const Schedule back = pipeline::parse_schedule(bytes, "s.bin");
    CHECK(back == s);
    CHECK(back == pipeline::parse_schedule(io::schedule_to_json(s), "s.json"));
    CHECK(binary_of(back) == bytes);
    ++checked;
  }
  CHECK(checked == 2);
}
