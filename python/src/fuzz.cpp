// phasecheck.fuzz: a generator written in Python called on the fuzzing machines
// (properties/function_fuzz.hpp: the constructions of `phasecheck fuzz`, drawn from a seed), each
// schedule judged as `phasecheck fuzz --generator` judges a program's, a failure shrunk to the
// simplest machine that still fails. The GIL is released except while the function runs; an
// exception of the function's (KeyboardInterrupt included) ends the campaign and reaches Python
// as it was raised.

#include <pybind11/stl.h>

#include <filesystem>

#include "core/error.hpp"
#include "properties/function_fuzz.hpp"
#include "python/src/arrays.hpp"
#include "python/src/native.hpp"
#include "python/src/objects.hpp"
#include "report/fuzz_report.hpp"

namespace phasecheck::python {

void bind_fuzz(py::module_& m) {
  const py::object input_error = m.attr("InputError");
  m.def(
      "_fuzz",
      [input_error](const py::object& function, const py::object& cases, const py::object& seed,
                    const py::object& max_size, const py::object& contention_free, const py::object& out) {
        if (!PyCallable_Check(function.ptr()))
          throw InputError("function: a callable is needed (machine -> Schedule or None), not " +
                           type_name(function));
        properties::FunctionFuzzOptions options;
        options.cases = read_count(cases, "cases", std::uint64_t{1} << 30);
        options.seed = read_count(seed, "seed", UINT64_MAX);
        options.max_size = static_cast<int>(read_count(max_size, "max_size", properties::kMaxFuzzSize));
        options.contention_free = read_flag(contention_free, "contention_free");
        options.out = out.is_none() ? "" : path_of(out, "out");
        if (std::error_code error; !options.out.empty() && std::filesystem::exists(options.out, error) &&
                                   !std::filesystem::is_directory(options.out, error))
          throw InputError("out: " + options.out + " exists and is not a directory");
        options.name = py::hasattr(function, "__qualname__") ? text_of(function.attr("__qualname__"))
                                                             : text_of(function);
        properties::validate(options);
        const auto call = [&](const Topology& t) -> std::optional<Schedule> {
          py::gil_scoped_acquire gil;
          try {
            const py::object made = function(Machine{t});
            if (made.is_none()) return std::nullopt;
            if (!py::isinstance<Schedule>(made))
              throw py::type_error("phasecheck.fuzz: the function returned " +
                                   type_name(made) +
                                   ", not a phasecheck.Schedule or None");
            return made.cast<Schedule>();
          } catch (py::error_already_set& e) {
            // A phasecheck.InputError the function lets out (a transfer outside the machine's
            // ranks, say) is a schedule it could not make: the case fails, as an external
            // generator's invalid output does. Only None declines a machine.
            if (e.matches(input_error))
              throw properties::FunctionFailed(std::string("the function's schedule is not valid: ") +
                                               e.what());
            throw;
          }
        };
        properties::FuzzOutcome outcome;
        {
          py::gil_scoped_release unlocked;
          outcome = properties::fuzz_function(options, call, reports::fuzz_case_report);
        }
        py::dict result;
        result["name"] = outcome.name;
        result["verdict"] = std::string(to_string(outcome.verdict));
        result["cases"] = outcome.cases;
        result["discarded"] = outcome.discarded;
        result["seconds"] = outcome.seconds;
        result["reason"] = outcome.reason;
        if (outcome.failure) {
          const properties::FuzzFailure& f = *outcome.failure;
          py::dict failure;
          failure["what"] = f.what;
          failure["machine"] = f.machine;
          failure["topology"] = Machine{f.topology};
          failure["schedule"] = f.schedule ? py::cast(*f.schedule) : py::none();
          failure["report"] = f.report;
          failure["files"] = py::cast(f.files);
          failure["replay"] = f.replay;
          failure["again"] = f.again;
          result["failure"] = failure;
        } else {
          result["failure"] = py::none();
        }
        return result;
      },
      py::arg("function"), py::arg("cases"), py::arg("seed"), py::arg("max_size"),
      py::arg("contention_free"), py::arg("out"));
}

}  // namespace phasecheck::python
