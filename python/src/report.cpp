// phasecheck.Report: a verification report as data (verdict, checks with their structured
// counterexamples, counts, bounds, the gap) and as the command line prints it (text, JSON,
// JUnit: report/verify_report.hpp renders both). CheckFailed carries a report that did not pass.

#include <pybind11/stl.h>

#include <algorithm>
#include <set>

#include "core/escape.hpp"
#include "python/src/native.hpp"
#include "python/src/objects.hpp"
#include "report/verify_report.hpp"
#include "verify/gap.hpp"

namespace phasecheck::python {
namespace {

py::object optional_number(const std::optional<std::uint64_t>& v) {
  return v ? py::object(py::int_(*v)) : py::object(py::none());
}

py::object block_tuple(const Block& b) {
  return b.dest == kEveryRank ? py::make_tuple(b.origin, py::none(), b.part)
                              : py::make_tuple(b.origin, b.dest, b.part);
}

/// The ranks a counterexample involves: the ends of its transfers and ops, in order.
std::vector<Rank> ranks_of(const Counterexample& c) {
  std::set<Rank> ranks;
  for (const OffendingTransfer& t : c.transfers) ranks.insert({t.src, t.dst});
  for (const OffendingOp& o : c.ops) ranks.insert({o.op.src, o.op.dst});
  return {ranks.begin(), ranks.end()};
}

py::object slot_tuple(const Slot& s) {
  return py::make_tuple(std::string(to_string(s.buffer)), s.index);
}

py::object check_failed_type;  // phasecheck.CheckFailed, made in bind_report

}  // namespace

py::str python_text(const std::string& text) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(text.data(), static_cast<Py_ssize_t>(text.size()), "replace"));
}

void raise_check_failed(const PyReport& report, const std::string& message) {
  const std::string text = message + "\n" +
                           reports::render(report.report, report.source, reports::ReportFormat::text);
  py::object error = check_failed_type(python_text(text));
  error.attr("report") = py::cast(report);
  PyErr_SetObject(check_failed_type.ptr(), error.ptr());
  throw py::error_already_set();
}

void bind_report(py::module_& m) {
  check_failed_type = py::reinterpret_borrow<py::object>(
      PyErr_NewExceptionWithDoc("phasecheck.CheckFailed",
                                "A schedule did not verify; `report` is its phasecheck.Report",
                                PyExc_Exception, nullptr));
  m.attr("CheckFailed") = check_failed_type;

  py::class_<OffendingTransfer>(m, "OffendingTransfer", "A transfer of a counterexample")
      .def_readonly("src", &OffendingTransfer::src)
      .def_readonly("dst", &OffendingTransfer::dst)
      .def_property_readonly("blocks",
                             [](const OffendingTransfer& t) {
                               py::list out;
                               for (const Block& b : t.blocks) out.append(block_tuple(b));
                               return out;
                             })
      .def_readonly("route", &OffendingTransfer::route,
                    "The nodes on its path, src first (a port model: src and dst)")
      .def_readonly("origin", &OffendingTransfer::origin,
                    "An imported program's source steps ('gpu 0 tb 2 step 1 -> ...'), or ''")
      .def("__repr__", [](const OffendingTransfer& t) {
        return "<OffendingTransfer " + std::to_string(t.src) + " -> " + std::to_string(t.dst) + ">";
      });

  py::class_<OffendingOp>(m, "OffendingOp", "An op of a buffer program in a counterexample")
      .def_readonly("phase", &OffendingOp::phase)
      .def_readonly("index", &OffendingOp::index, "Its position in the phase's ops")
      .def_property_readonly("src", [](const OffendingOp& o) { return o.op.src; })
      .def_property_readonly("dst", [](const OffendingOp& o) { return o.op.dst; })
      .def_property_readonly("source_slot", [](const OffendingOp& o) { return slot_tuple(o.op.from); },
                             "(buffer, index) it reads")
      .def_property_readonly("target_slot", [](const OffendingOp& o) { return slot_tuple(o.op.to); },
                             "(buffer, index) it writes")
      .def_property_readonly("count", [](const OffendingOp& o) { return o.op.count; })
      .def_readonly("origin", &OffendingOp::origin)
      .def("__str__", [](const OffendingOp& o) { return describe_op(o.op); })
      .def("__repr__", [](const OffendingOp& o) { return "<OffendingOp " + describe_op(o.op) + ">"; });

  py::class_<Counterexample>(m, "Counterexample",
                             "Where a check failed: the phase, its offending transfers or ops, "
                             "the shared link, port or buffer slot")
      .def_readonly("phase", &Counterexample::phase, "0-based, or None (a block never arrives)")
      .def_readonly("label", &Counterexample::label)
      .def_readonly("phase_size", &Counterexample::phase_size)
      .def_readonly("transfers", &Counterexample::transfers)
      .def_readonly("ops", &Counterexample::ops)
      .def_property_readonly("ranks", &ranks_of, "The ranks of its transfers and ops, ascending")
      .def_readonly("resource", &Counterexample::resource,
                    "The shared link, node, port or buffer slot ('link s0 -> s1', ...)")
      .def_readonly("explanation", &Counterexample::explanation)
      .def_property_readonly("steps",
                             [](const Counterexample& c) {
                               std::vector<std::string> out;
                               for (const StepRef& s : c.steps) out.push_back(to_string(s));
                               return out;
                             },
                             "An imported program's steps ('gpu 3 tb 1 step 7')")
      .def("__repr__", [](const Counterexample& c) {
        return "<Counterexample phase " + (c.phase ? std::to_string(*c.phase) : "-") + ": " +
               c.explanation + ">";
      });

  py::class_<PyCheck>(m, "Check", "One check of a report")
      .def_property_readonly("id", [](const PyCheck& c) { return std::string(c.result.name()); })
      .def_property_readonly("verdict",
                             [](const PyCheck& c) { return std::string(to_string(c.result.verdict)); })
      .def_property_readonly("passed",
                             [](const PyCheck& c) { return c.result.verdict == Verdict::pass; })
      .def_property_readonly("summary", [](const PyCheck& c) { return c.result.summary; })
      .def_property_readonly("counterexample",
                             [](const PyCheck& c) -> py::object {
                               if (!c.result.counterexample) return py::none();
                               return py::cast(*c.result.counterexample);
                             })
      .def("text", [](const PyCheck& c) { return reports::draw_check(c.result, c.collective); },
           "The check as `verify` prints a failure: explanation, phase, transfers, routes")
      .def("__repr__", [](const PyCheck& c) {
        return "<Check " + std::string(c.result.name()) + ": " +
               std::string(to_string(c.result.verdict)) + ">";
      });

  py::class_<verify::Bound>(m, "Bound", "A lower bound that applies to the schedule")
      .def_property_readonly("metric", [](const verify::Bound& b) { return std::string(to_string(b.metric)); })
      .def_readonly("value", &verify::Bound::value)
      .def_readonly("argument", &verify::Bound::argument)
      .def_readonly("direct_only", &verify::Bound::direct_only)
      .def("__repr__", [](const verify::Bound& b) {
        return "<Bound " + std::string(to_string(b.metric)) + " >= " + std::to_string(b.value) + ">";
      });

  py::class_<PyReport>(m, "Report", "What verify or check found")
      .def_property_readonly("verdict",
                             [](const PyReport& r) { return std::string(to_string(r.report.verdict())); },
                             "'pass', 'fail', 'unknown' or 'not-evaluated'")
      .def_property_readonly("passed",
                             [](const PyReport& r) { return r.report.verdict() == Verdict::pass; })
      .def_property_readonly("checks",
                             [](const PyReport& r) {
                               std::vector<PyCheck> out;
                               for (const CheckResult& c : r.report.checks)
                                 out.push_back({c, r.report.collective});
                               return out;
                             })
      .def(
          "check",
          [](const PyReport& r, const std::string& id) -> py::object {
            for (const CheckResult& c : r.report.checks)
              if (c.name() == id) return py::cast(PyCheck{c, r.report.collective});
            return py::none();
          },
          py::arg("id"), "The check called `id` ('delivery', ...), or None when it did not run")
      .def_property_readonly("failures",
                             [](const PyReport& r) {
                               std::vector<PyCheck> out;
                               for (const CheckResult& c : r.report.checks)
                                 if (c.verdict == Verdict::fail) out.push_back({c, r.report.collective});
                               return out;
                             })
      .def_property_readonly("algorithm", [](const PyReport& r) { return r.report.algorithm; })
      .def_property_readonly("collective",
                             [](const PyReport& r) { return std::string(r.report.collective_name()); })
      .def_property_readonly("topology", [](const PyReport& r) { return r.report.topology; },
                             "The model judged on, described")
      .def_property_readonly("source", [](const PyReport& r) { return python_text(r.source); },
                             "The file it names (ill-formed UTF-8 replaced), or '<schedule>'")
      .def_property_readonly("phases", [](const PyReport& r) { return r.report.counts.phases; })
      .def_property_readonly("c1", [](const PyReport& r) { return r.report.counts.c1; })
      .def_property_readonly("c2", [](const PyReport& r) { return r.report.counts.c2; })
      .def_property_readonly("transfers", [](const PyReport& r) { return r.report.counts.transfers; })
      .def_property_readonly("blocks", [](const PyReport& r) { return r.report.counts.blocks; })
      .def_property_readonly("direct", [](const PyReport& r) { return r.report.counts.direct; })
      .def_property_readonly("bounds", [](const PyReport& r) { return r.report.bounds; })
      .def_property_readonly("bound_c1",
                             [](const PyReport& r) { return optional_number(verify::known_bounds(r.report).c1); })
      .def_property_readonly("bound_c2",
                             [](const PyReport& r) { return optional_number(verify::known_bounds(r.report).c2); })
      .def_property_readonly(
          "gap",
          [](const PyReport& r) {
            const verify::Gap g = verify::gap(r.report);
            return py::make_tuple(optional_number(g.c1), optional_number(g.c2));
          },
          "(C1, C2) above the bound; None where it is undefined or no bound applies")
      .def_property_readonly("bytes",
                             [](const PyReport& r) -> py::object {
                               if (!r.report.bytes) return py::none();
                               py::dict d;
                               d["cost"] = r.report.bytes->cost;
                               d["load_bound"] = r.report.bytes->load_bound;
                               d["argument"] = r.report.bytes->argument;
                               return d;
                             },
                             "An alltoallv's figures in bytes (cost, load_bound, argument)")
      .def("text", [](const PyReport& r) { return python_text(reports::render(r.report, r.source, reports::ReportFormat::text)); },
           "What `phasecheck verify` prints")
      .def("json", [](const PyReport& r) { return python_text(reports::render(r.report, r.source, reports::ReportFormat::json)); },
           "What `phasecheck verify --report json` prints (docs/formats.md)")
      .def("junit", [](const PyReport& r) { return python_text(reports::render(r.report, r.source, reports::ReportFormat::junit)); })
      .def("raise_for_failure",
           [](const PyReport& r) {
             if (r.report.verdict() != Verdict::pass)
               raise_check_failed(r, r.source + ": " + std::string(to_string(r.report.verdict())) +
                                         " (" + tally(r.report.checks) + ")");
           },
           "Raises CheckFailed (carrying this report) unless the verdict is pass")
      .def("__repr__", [](const PyReport& r) {
        return python_text("<phasecheck.Report " + text_escape(r.source) + ": " +
                           std::string(to_string(r.report.verdict())) + ", " +
                           tally(r.report.checks) + ">");
      });
}

}  // namespace phasecheck::python
