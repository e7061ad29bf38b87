#include "python/src/schedule_input.hpp"

#include "core/buffers.hpp"
#include "core/error.hpp"
#include "core/files.hpp"
#include "core/networks.hpp"
#include "io/traffic.hpp"
#include "python/src/arrays.hpp"
#include "python/src/objects.hpp"

namespace phasecheck::python {

SharedTraffic read_traffic_argument(const py::object& traffic, Rank ranks) {
  if (traffic.is_none()) return {};
  Traffic t;
  if (is_array(traffic)) {
    const auto array = py::reinterpret_borrow<py::array>(traffic);
    if (array.ndim() != 2 || array.shape(0) != array.shape(1) ||
        static_cast<std::uint64_t>(array.shape(0)) != ranks)
      throw InputError("traffic: a (" + std::to_string(ranks) + ", " + std::to_string(ranks) +
                       ") matrix of element counts is needed (one row per sending rank)");
    t = zero_traffic(ranks);
    const IntMatrix counts(array, "traffic", ranks);
    counts.for_each(kMaxTrafficCount, [&](std::size_t s, std::size_t d, std::uint64_t v) {
      t.counts[s * ranks + d] = v;
    });
  } else {
    const std::string path = path_of(traffic, "traffic");
    t = io::read_traffic_file(path);
    if (t.ranks != ranks)
      throw InputError("traffic: " + path + " is a matrix of " + std::to_string(t.ranks) +
                       " ranks; the machine has " + std::to_string(ranks));
  }
  if (const auto problem = traffic_problem(t)) throw InputError("traffic: " + *problem);
  return SharedTraffic(std::move(t));
}

ScheduleHeader make_schedule_header(const py::object& ranks, const std::string& collective,
                                    const py::object& topology, const std::string& algorithm,
                                    const py::object& buffers, const py::object& parts,
                                    const py::object& traffic, bool inplace) {
  ScheduleHeader h;
  h.algorithm = algorithm;
  if (!topology.is_none()) {
    if (!py::isinstance<Machine>(topology))
      throw InputError("topology: a phasecheck.Topology is needed (phasecheck.topology.tree(...), "
                       ".load(path), ...)");
    h.topology = topology.cast<const Machine&>().topology;
    if (!ranks.is_none()) {
      const std::uint64_t p = read_count(ranks, "ranks", UINT64_MAX);
      if (p != h.ranks())
        throw InputError("ranks: " + std::to_string(p) + ", but the topology has " +
                         std::to_string(h.ranks()) + " ranks");
    }
  } else if (ranks.is_none()) {
    throw InputError("Schedule: give ranks, a topology, or both");
  } else {
    h.topology = fully_connected_network(read_count(ranks, "ranks", UINT64_MAX), 1);
  }
  const bool alltoallv = collective == "alltoallv";
  h.collective = alltoallv ? Collective::alltoall
                           : with_source("collective", [&] { return parse_collective(collective); });
  if (alltoallv != !traffic.is_none())
    throw InputError(alltoallv ? "collective alltoallv needs traffic= (its (p, p) counts)"
                               : "traffic= belongs to collective=\"alltoallv\"");
  h.traffic = read_traffic_argument(traffic, h.ranks());
  h.inplace = inplace;
  h.parts = static_cast<std::uint32_t>(read_count(parts, "parts", kMaxParts));
  if (h.parts == 0) throw InputError("parts: 0; a message has at least one part");
  if (!buffers.is_none()) {
    if (alltoallv) throw InputError("buffers: an alltoallv is a phase table, not a program");
    if (!py::isinstance<py::dict>(buffers))
      throw InputError("buffers: a dict of chunks, input, output, scratch, inplace is needed");
    const auto d = py::reinterpret_borrow<py::dict>(buffers);
    for (const auto& [key, value] : d) {
      const std::string name = py::str(key);
      if (name != "chunks" && name != "input" && name != "output" && name != "scratch" &&
          name != "inplace")
        throw InputError("buffers: '" + name +
                         "' is not a key (chunks, input, output, scratch, inplace)");
    }
    const auto get = [&](const char* key, std::uint64_t fallback) -> std::uint32_t {
      if (!d.contains(key)) return static_cast<std::uint32_t>(fallback);
      return static_cast<std::uint32_t>(
          read_count(d[key], std::string("buffers['") + key + "']", kMaxSlots));
    };
    const bool in_place = d.contains("inplace") && read_flag(d["inplace"], "buffers['inplace']");
    const std::uint32_t chunks = get("chunks", h.parts != 1 ? h.parts : 1);
    const BufferLayout natural = natural_layout(h.collective, h.ranks(), std::max(chunks, 1u), in_place);
    BufferLayout layout{chunks, in_place, get("input", natural.input), get("output", natural.output),
                        get("scratch", 0)};
    if (const auto problem = layout_problem(layout, h.collective, h.ranks()))
      throw InputError("buffers: " + *problem);
    h.parts = layout.chunks;
    h.buffers = layout;
    h.inplace = false;  // a program says it in its layout
  }
  return h;
}

}  // namespace phasecheck::python
