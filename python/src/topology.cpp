// phasecheck.topology: the machines `phasecheck topology KIND` builds (core/networks.hpp), a
// topology file or an NCCL/RCCL topology XML read by content (io/json.hpp), and the Topology
// class: its ranks, kind, description and file.

#include <vector>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/networks.hpp"
#include "io/json.hpp"
#include "python/src/arrays.hpp"
#include "python/src/native.hpp"
#include "python/src/objects.hpp"

namespace phasecheck::python {
namespace {

constexpr std::uint64_t kUnsignedMax = 0xffffffffu;

std::vector<std::uint64_t> count_list(const py::handle& object, const std::string& argument) {
  if (is_array(object)) {
    const IntMatrix column(py::reinterpret_borrow<py::array>(object), argument, 0);
    std::vector<std::uint64_t> out(column.rows());
    column.for_each(UINT64_MAX, [&](std::size_t r, std::size_t, std::uint64_t v) { out[r] = v; });
    return out;
  }
  if (!py::isinstance<py::sequence>(object) || py::isinstance<py::str>(object))
    throw InputError(argument + ": a list of integers is needed, not " +
                     type_name(object));
  std::vector<std::uint64_t> out;
  std::size_t i = 0;
  for (const py::handle item : py::reinterpret_borrow<py::sequence>(object))
    out.push_back(read_count(item, argument + "[" + std::to_string(i++) + "]", UINT64_MAX));
  return out;
}

unsigned small(const py::handle& object, const std::string& argument) {
  return static_cast<unsigned>(read_count(object, argument, kUnsignedMax));
}

Machine built(Topology topology) { return Machine{std::move(topology)}; }

}  // namespace

void bind_topology(py::module_& m) {
  py::class_<Machine>(m, "Topology", "A machine model (docs/models.md)")
      .def_property_readonly("ranks", [](const Machine& t) { return ranks(t.topology); })
      .def_property_readonly("kind", [](const Machine& t) { return kind(t.topology); })
      .def("describe", [](const Machine& t) { return describe(t.topology); })
      .def("json", [](const Machine& t) { return io::topology_to_pretty_json(t.topology); },
           "The topology file's text (docs/formats.md)")
      .def(
          "save",
          [](const Machine& t, const py::object& path) {
            const std::string file = path_of(path, "save: path");
            write_output(file, [&](std::ostream& os) { os << io::topology_to_pretty_json(t.topology); });
          },
          py::arg("path"), "Writes the topology file (never over a link or a non-regular file)")
      .def("__eq__",
           [](const Machine& a, const py::object& b) -> py::object {
             if (!py::isinstance<Machine>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
             return py::bool_(a.topology == b.cast<const Machine&>().topology);
           })
      .def("__str__", [](const Machine& t) { return describe(t.topology); })
      .def("__repr__", [](const Machine& t) {
        return "<phasecheck.Topology " + kind(t.topology) + ": " + describe(t.topology) + ">";
      });

  py::module_ t = m.def_submodule("topology", "Machines: built by kind, or read from a file");
  t.def(
      "load",
      [](const py::object& path) {
        const std::string file = path_of(path, "load: path");
        py::gil_scoped_release unlocked;
        return built(io::read_topology_file(file));
      },
      py::arg("path"),
      "A topology file (JSON, versions 1 and 2) or NCCL's/RCCL's topology XML, told by content");
  t.def(
      "parse",
      [](const py::object& text, const py::object& source) {
        return built(io::parse_topology(read_text(text, "text"), read_text(source, "source")));
      },
      py::arg("text"), py::arg("source") = py::str("<string>"), "A topology file's text");
  t.def(
      "tree", [](const py::object& fanout) { return built(tree_network(count_list(fanout, "fanout"))); },
      py::arg("fanout"), "A tree of switches, level by level from the root: fanout=[8, 4]");
  t.def(
      "fat_tree", [](const py::object& k) { return built(fat_tree_network(read_count(k, "k", UINT64_MAX))); },
      py::arg("k"), "The k-ary fat tree (a graph)");
  t.def(
      "cluster", [](const py::object& sizes) { return built(cluster_network(count_list(sizes, "sizes"))); },
      py::arg("sizes"), "SMP nodes of the given sizes: cluster([8, 8, 4, 1])");
  t.def(
      "fully_connected",
      [](const py::object& p, const py::object& ports) {
        return built(fully_connected_network(read_count(p, "p", UINT64_MAX),
                                             read_count(ports, "ports", UINT64_MAX)));
      },
      py::arg("p"), py::arg("ports") = 1, "p ranks with `ports` ports each");
  t.def(
      "hypercube", [](const py::object& d) { return built(hypercube_network(read_count(d, "d", UINT64_MAX))); },
      py::arg("d"), "2^d ranks, e-cube routing");
  t.def(
      "mesh",
      [](const py::object& rows, const py::object& cols, const py::object& wraparound) {
        return built(mesh_network(read_count(rows, "rows", UINT64_MAX),
                                  read_count(cols, "cols", UINT64_MAX),
                                  read_flag(wraparound, "wraparound")));
      },
      py::arg("rows"), py::arg("cols"), py::arg("wraparound") = py::bool_(false),
      "rows x cols ranks, XY routing; a torus with wraparound=True");
  t.def(
      "ring", [](const py::object& p) { return built(ring_network(read_count(p, "p", UINT64_MAX))); },
      py::arg("p"), "p ranks on a bidirectional ring");
  t.def(
      "slimfly",
      [](const py::object& q, const py::object& concentration) {
        return built(slim_fly(small(q, "q"), small(concentration, "concentration")));
      },
      py::arg("q") = 5, py::arg("concentration") = 0,
      "Slim Fly by the MMS construction (concentration 0: ceil(degree/2))");
  t.def(
      "dragonfly",
      [](const py::object& a, const py::object& h, const py::object& p) {
        return built(dragonfly(small(a, "a"), small(h, "h"), small(p, "p")));
      },
      py::arg("a") = 4, py::arg("h") = 2, py::arg("p") = 2, "The canonical Dragonfly");
  t.def(
      "xgmi", [](const py::object& gpus) { return built(xgmi(small(gpus, "gpus"))); },
      py::arg("gpus") = 8, "GPUs fully connected by xGMI links");
  t.def(
      "nvswitch", [](const py::object& gpus) { return built(nvswitch(small(gpus, "gpus"))); },
      py::arg("gpus") = 8, "GPUs behind one NVSwitch");
  t.def("dgx1", [] { return built(dgx1()); }, "The 8 V100 GPUs of a DGX-1 (hybrid cube-mesh)");
  t.def(
      "gpu_cluster",
      [](const py::object& nodes, const py::object& gpus, const py::object& nics) {
        return built(gpu_cluster(small(nodes, "nodes"), small(gpus, "gpus"), small(nics, "nics")));
      },
      py::arg("nodes") = 2, py::arg("gpus") = 8, py::arg("nics") = 1,
      "Nodes of GPUs behind NICs on one network switch");
}

}  // namespace phasecheck::python
