// fuzz-topology-reader: arbitrary bytes into the topology reader (io/json.hpp: parse_topology, the
// same code that reads a schedule's "topology"). An InputError is the expected answer to bad
// input; a crash, a sanitizer report or any other exception is a finding. A topology it accepts
// must survive a round trip through the writer, in both the one-line and the indented form.

#include <cstdint>
#include <exception>
#include <string>

#include "core/error.hpp"
#include "finding.hpp"
#include "io/json.hpp"

using namespace phasecheck;

namespace {

void round_trip(const Topology& topology, const std::string& written) {
  try {
    if (!(io::parse_topology(written, "written.json") == topology))
      fuzz::finding("the topology read back from what the writer wrote differs", written);
  } catch (const std::exception& e) {
    fuzz::finding(std::string("the reader refuses what the writer wrote: ") + e.what(), written);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const Topology topology = io::parse_topology(fuzz::as_text(data, size), "fuzz.json");
    (void)describe(topology);
    round_trip(topology, io::topology_to_json(topology));
    round_trip(topology, io::topology_to_pretty_json(topology));
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    fuzz::finding(std::string("parse_topology threw something other than InputError: ") + e.what());
  }
  return 0;
}
