// A gate manifest from Python (ci/gate.hpp, ci/case_source.hpp): every case compared with its
// baseline as `phasecheck gate` does, returned case by case for `pytest --phasecheck-manifest`.

#include <pybind11/stl.h>

#include <algorithm>

#include "ci/case_source.hpp"
#include "ci/gate.hpp"
#include "core/limits.hpp"
#include "io/gate_manifest.hpp"
#include "core/error.hpp"
#include "python/src/arrays.hpp"
#include "python/src/native.hpp"
#include "python/src/objects.hpp"
#include "report/comparison_report.hpp"

namespace phasecheck::python {

void bind_gate(py::module_& m) {
  m.def(
      "gate_cases",
      [](const py::object& manifest) {
        const std::string path = path_of(manifest, "manifest");
        std::vector<std::string> names;
        for (const io::GateCase& c : io::read_gate_manifest(path).cases) names.push_back(c.name);
        return names;
      },
      py::arg("manifest"), "The names of a gate manifest's cases, in order (docs/ci.md)");
  m.def(
      "gate",
      [](const py::object& manifest, const py::object& allow, const py::object& generators,
         const py::object& timeout_object, const py::object& allow_outside) {
        const std::string path = path_of(manifest, "manifest");
        ci::GateOptions options;
        const std::vector<std::string> allowed = read_texts(allow, "allow");
        const std::vector<std::string> known = ci::allowable_regressions();
        for (std::size_t k = 0; k < allowed.size(); ++k)
          if (std::find(known.begin(), known.end(), allowed[k]) == known.end()) {
            std::string list;
            for (const std::string& name : known) list += (list.empty() ? "" : ", ") + name;
            throw InputError("allow[" + std::to_string(k) + "]: unknown regression '" +
                             allowed[k] + "' (known: " + list + ")");
          }
        options.allow = {allowed.begin(), allowed.end()};
        options.generators = read_flag(generators, "generators");
        if (!py::isinstance<py::list>(allow_outside) && !py::isinstance<py::tuple>(allow_outside))
          throw InputError("allow_outside: a list of paths is needed");
        std::size_t i = 0;
        for (const py::handle dir : allow_outside)
          options.allow_outside.push_back(
              path_of(dir, "allow_outside[" + std::to_string(i++) + "]"));
        if (PyBool_Check(timeout_object.ptr()) ||
            (!py::isinstance<py::float_>(timeout_object) && !py::isinstance<py::int_>(timeout_object)))
          throw InputError("timeout: a number of seconds is needed");
        const double timeout = PyFloat_AsDouble(timeout_object.ptr());
        if (timeout == -1.0 && PyErr_Occurred()) {
          PyErr_Clear();
          throw InputError("timeout: " + text_of(timeout_object) + " seconds is out of range");
        }
        check_timeout(timeout, "timeout");
        py::gil_scoped_release unlocked;
        const io::GateManifest read = io::read_gate_manifest(path);
        const ci::GateResult result =
            ci::run_gate(path, read, options, ci::case_source(path, timeout), nullptr);
        std::vector<std::tuple<std::string, std::string, std::string>> cases;
        for (const ci::GateCaseResult& c : result.cases)
          cases.emplace_back(c.name, std::string(to_string(c.comparison.verdict())),
                             reports::render_comparison(c.comparison, reports::ReportFormat::text));
        return std::make_tuple(std::string(to_string(result.verdict())), cases,
                               reports::render_gate(result, reports::ReportFormat::text));
      },
      py::arg("manifest"), py::arg("allow") = py::list(), py::arg("generators") = py::bool_(true),
      py::arg("timeout") = py::float_(300.0), py::arg("allow_outside") = py::list(),
      "Runs every case of a gate manifest against its baseline (`phasecheck gate`, never "
      "--update): (verdict, [(case, verdict, text)], the whole report's text)");
}

}  // namespace phasecheck::python
