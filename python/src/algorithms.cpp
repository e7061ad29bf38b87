// The registry from Python (schedules/registry.hpp): phasecheck.algorithms() with each
// parameter's type and range, generate(name, topology, **params) and check(name, topology,
// **params), the latter streaming as `phasecheck check` does (pipeline/check.hpp). The GIL is
// released while they work; Ctrl-C stops them between phases.

#include <pybind11/stl.h>

#include <thread>

#include "core/error.hpp"
#include "core/limits.hpp"
#include "pipeline/check.hpp"
#include "python/src/arrays.hpp"
#include "python/src/interrupt.hpp"
#include "python/src/native.hpp"
#include "python/src/objects.hpp"
#include "python/src/schedule_input.hpp"
#include "python/src/spread.hpp"
#include "report/algorithms_report.hpp"
#include "schedules/registry.hpp"
#include "verify/parallel.hpp"

namespace phasecheck::python {
namespace {

/// A JSON value of a report as Python values (objects keep their key order).
py::object python_value(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object: {
      py::dict d;
      for (const auto& [key, value] : j.items()) d[py::str(key)] = python_value(value);
      return d;
    }
    case nlohmann::json::value_t::array: {
      py::list l;
      for (const auto& value : j) l.append(python_value(value));
      return l;
    }
    case nlohmann::json::value_t::string: return py::str(j.get<std::string>());
    case nlohmann::json::value_t::boolean: return py::bool_(j.get<bool>());
    case nlohmann::json::value_t::number_unsigned: return py::int_(j.get<std::uint64_t>());
    case nlohmann::json::value_t::number_integer: return py::int_(j.get<std::int64_t>());
    case nlohmann::json::value_t::number_float: return py::float_(j.get<double>());
    case nlohmann::json::value_t::null:
    case nlohmann::json::value_t::binary:
    case nlohmann::json::value_t::discarded: return py::none();
  }
  return py::none();
}

/// Keyword parameters as the registry reads them ("radix" -> "4"): int, bool or str.
Parameters read_parameters(const py::kwargs& params) {
  Parameters out;
  for (const auto& [key, value] : params) {
    const std::string name = read_text(key, "parameter name");
    if (PyBool_Check(value.ptr()))
      out.set(name, value.cast<bool>() ? "true" : "false");
    else if (py::isinstance<py::int_>(value))
      out.set(name, text_of(value));
    else if (py::isinstance<py::str>(value))
      out.set(name, read_text(value, "parameter " + name));
    else
      throw InputError("parameter " + name + ": " +
                       type_name(value) +
                       " is not an int, bool or str");
  }
  return out;
}

const Topology& machine_of(const py::object& topology) {
  if (!py::isinstance<Machine>(topology))
    throw InputError("topology: a phasecheck.Topology is needed (phasecheck.topology.tree(...), "
                     ".load(path), ...)");
  return topology.cast<const Machine&>().topology;
}

}  // namespace

void bind_algorithms(py::module_& m) {
  m.def(
      "algorithms",
      [] {
        py::list out;
        for (const schedules::Algorithm& a : schedules::algorithms()) {
          py::dict d;
          d["name"] = std::string(a.name);
          d["summary"] = std::string(a.summary);
          d["reference"] = std::string(a.reference);
          d["library"] = std::string(a.library);
          d["alltoallv"] = schedules::is_alltoallv(a);
          py::list parameters;
          // As `phasecheck algorithms --report json` describes them (one definition).
          for (const ParameterSpec& spec : a.parameter_specs)
            parameters.append(python_value(reports::parameter_json(spec)));
          d["parameters"] = parameters;
          out.append(d);
        }
        return out;
      },
      "Every registered algorithm: name, summary, reference, library, alltoallv, and its "
      "parameters as `phasecheck algorithms --report json` gives them (name, type unsigned/"
      "boolean/choice/text, min/max with 'p' for the rank count, values, default or "
      "default_in_words, help)");

  m.def(
      "generate",
      [](const py::object& name_object, const py::object& topology, const py::object& buffers_object,
         const py::object& traffic, const py::kwargs& params) {
        const std::string name = read_text(name_object, "name");
        const bool buffers = read_flag(buffers_object, "buffers");
        const schedules::Algorithm& algorithm = schedules::require_algorithm(name);
        const Topology& model = machine_of(topology);
        Parameters parameters = read_parameters(params);
        SharedTraffic matrix = read_traffic_argument(traffic, ranks(model));
        py::gil_scoped_release unlocked;
        const ScheduleHeader header =
            schedules::make_header(algorithm, model, std::move(parameters), std::move(matrix));
        // The whole table is held (a program: the table and the program), refused before it is
        // made when it cannot fit, as `generate --buffers` and gate refuse theirs.
        check_memory(checked_mul(held_table_bytes(header), buffers ? 2 : 1),
                     "generate " + name + " on " + std::to_string(header.ranks()) +
                         " ranks (the whole table is held; phasecheck.check streams it)");
        if (buffers) return schedules::generate_program(algorithm, header);
        Schedule schedule{header, {}};
        Checkpoint checkpoint;
        algorithm.generate(schedule.header, [&](const Phase& phase) {
          checkpoint();
          schedule.phases.push_back(phase);
        });
        return schedule;
      },
      py::arg("name"), py::arg("topology"), py::kw_only(), py::arg("buffers") = py::bool_(false),
      py::arg("traffic") = py::none(),
      "The registered algorithm's schedule on the machine, held in memory (buffers=True: its "
      "buffer program). Parameters as keywords: generate('bruck-index', t, radix=4)");

  m.def(
      "check",
      [](const py::object& name_object, const py::object& topology, const py::object& threads,
         const py::object& traffic, const py::kwargs& params) {
        const std::string name = read_text(name_object, "name");
        const schedules::Algorithm& algorithm = schedules::require_algorithm(name);
        const Topology& model = machine_of(topology);
        Parameters parameters = read_parameters(params);
        SharedTraffic matrix = read_traffic_argument(traffic, ranks(model));
        Checkpoint checkpoint;
        const pipeline::Spread spread = make_spread(threads, checkpoint);
        py::gil_scoped_release unlocked;
        ScheduleHeader header = schedules::make_header(algorithm, model, parameters, matrix);
        std::optional<verify::Report> report =
            pipeline::check_algorithm(algorithm, model, std::move(parameters), spread, std::move(matrix));
        return PyReport{std::move(*report), name + " on " + describe(model), std::move(header)};
      },
      py::arg("name"), py::arg("topology"), py::kw_only(), py::arg("threads") = 0,
      py::arg("traffic") = py::none(),
      "Generates and verifies in one pass, the schedule never held (`phasecheck check`)");
}

}  // namespace phasecheck::python
