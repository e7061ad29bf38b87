// phasecheck.verify and phasecheck.draw: a schedule held in Python or any schedule file, verified
// as `phasecheck verify` does (pipeline/check.hpp, over threads, GIL released, Ctrl-C between
// phases) or drawn as `phasecheck draw` and `verify --svg` draw (report/schedule_picture.hpp,
// report/counterexample_svg.hpp).

#include <optional>

#include "core/error.hpp"
#include "core/files.hpp"
#include "io/json.hpp"
#include "pipeline/check.hpp"
#include "pipeline/read_schedule.hpp"
#include "python/src/arrays.hpp"
#include "python/src/interrupt.hpp"
#include "python/src/native.hpp"
#include "python/src/objects.hpp"
#include "python/src/spread.hpp"
#include "report/counterexample_svg.hpp"
#include "report/schedule_picture.hpp"

namespace phasecheck::python {
namespace {

/// The source a schedule held in Python is named by in reports.
constexpr const char* kHeld = "<schedule>";

/// A what-if model: None, a Topology, or a topology file's path.
std::optional<Topology> what_if_of(const py::object& topology) {
  if (topology.is_none()) return std::nullopt;
  if (py::isinstance<Machine>(topology)) return topology.cast<const Machine&>().topology;
  const std::string path = path_of(topology, "topology");
  py::gil_scoped_release unlocked;
  return io::read_topology_file(path);
}

/// The file `schedule` names when it is not a Schedule.
std::string schedule_path(const py::object& schedule) {
  if (!py::isinstance<py::str>(schedule) && !py::isinstance<py::bytes>(schedule) &&
      !py::hasattr(schedule, "__fspath__"))
    throw InputError("schedule: a phasecheck.Schedule or a schedule file's path is needed, not " +
                     type_name(schedule));
  return path_of(schedule, "schedule");
}

/// Streams `schedule` (a Schedule or a file's path) into `on_header` and `on_phase`; the source
/// it is named by.
std::string stream(const py::object& schedule,
                   const std::function<void(const ScheduleHeader&)>& on_header,
                   const PhaseSink& on_phase) {
  if (py::isinstance<Schedule>(schedule)) {
    const Schedule& s = schedule.cast<const Schedule&>();
    ReadingSchedule reading(s);
    py::gil_scoped_release unlocked;
    on_header(s.header);
    for (const Phase& p : s.phases) on_phase(p);
    return kHeld;
  }
  const std::string path = schedule_path(schedule);
  const std::string source = input_name(path);
  py::gil_scoped_release unlocked;
  pipeline::read_schedule_file(
      path, [&](const ScheduleHeader& h) { with_source(source, [&] { on_header(h); }); },
      [&](const Phase& p) { with_source(source, [&] { on_phase(p); }); });
  return source;
}

}  // namespace

void bind_verify(py::module_& m) {
  m.def(
      "verify",
      [](const py::object& schedule, const py::object& topology, const py::object& threads) {
        const std::optional<Topology> what_if = what_if_of(topology);
        Checkpoint checkpoint;
        const pipeline::Spread spread = make_spread(threads, checkpoint);
        const Topology* model = what_if ? &*what_if : nullptr;
        if (py::isinstance<Schedule>(schedule)) {
          const Schedule& s = schedule.cast<const Schedule&>();
          ReadingSchedule reading(s);
          py::gil_scoped_release unlocked;
          std::optional<verify::Report> report = pipeline::verify_schedule(s, model, spread);
          return PyReport{std::move(*report), kHeld, s.header};
        }
        const std::string path = schedule_path(schedule);
        py::gil_scoped_release unlocked;
        pipeline::Verified v = pipeline::verify_file(path, model, spread);
        return PyReport{std::move(*v.report), v.source, std::move(v.header)};
      },
      py::arg("schedule"), py::arg("topology") = py::none(), py::kw_only(),
      py::arg("threads") = 0,
      "Verifies a Schedule or any schedule file (JSON, binary, MSCCL XML, MSCCL++ plan) on its "
      "own machine or on `topology` (a Topology or a topology file): a Report. Another "
      "thread's changes to the Schedule meanwhile raise InputError");

  m.def(
      "draw",
      [](const py::object& schedule, const py::object& path, const py::object& links_object,
         const py::object& report) -> py::object {
        const std::string file = path_of(path, "path");
        const bool links = read_flag(links_object, "links");
        // The picture never replaces the schedule file it draws.
        std::vector<std::string> inputs;
        if (!py::isinstance<Schedule>(schedule)) inputs.push_back(schedule_path(schedule));
        check_output(file, inputs);
        if (!report.is_none()) {
          if (!py::isinstance<PyReport>(report))
            throw InputError("report: a phasecheck.Report is needed");
          const PyReport& r = report.cast<const PyReport&>();
          const verify::CheckResult* failure = reports::drawable_failure(r.report);
          if (!failure) return py::none();
          const std::size_t wanted = *failure->counterexample->phase;
          std::optional<Phase> phase;
          std::size_t index = 0;
          bool same = false;
          const std::string source = stream(
              schedule,
              [&](const ScheduleHeader& h) {
                same = h.ranks() == r.header.ranks() && h.collective == r.header.collective &&
                       h.algorithm == r.header.algorithm && h.topology == r.header.topology;
              },
              [&](const Phase& p) {
                if (index++ == wanted) phase = p;
              });
          if (!same || !phase || index != r.report.counts.phases)
            throw InputError("report: it is not this schedule's report (another header or "
                             "another number of phases)");
          const std::string svg = reports::counterexample_svg(*failure, r.report,
                                                              r.header.ranks(), &*phase, source);
          write_output(file, [&](std::ostream& os) { os << svg; }, inputs);
          return py::str("the counterexample of " + std::string(failure->name()) + " in phase " +
                         std::to_string(wanted));
        }
        std::optional<reports::SchedulePicture> picture;
        const std::string source = stream(
            schedule, [&](const ScheduleHeader& h) { picture.emplace(h, links); },
            [&](const Phase& p) { picture->consume(p); });
        const reports::Picture drawn = picture->finish(source);
        write_output(file, [&](std::ostream& os) { os << drawn.svg; }, inputs);
        return py::str(drawn.summary);
      },
      py::arg("schedule"), py::arg("path"), py::kw_only(), py::arg("links") = py::bool_(false),
      py::arg("report") = py::none(),
      "Draws a Schedule or schedule file as SVG at `path`: the phase grid, the link-load heat "
      "map (links=True), or with report= the report's first failure located in a phase (None "
      "when there is none). Returns what was drawn");
}

}  // namespace phasecheck::python
