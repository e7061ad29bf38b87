#pragma once
/// What `import` and `export` did, for a person (text) and for a program (JSON; docs/formats.md):
/// a SimGrid trace turned into a phase table, an MSCCL program lowered to format 3 (or refused
/// for the faults of its execution), a verified schedule exported as MSCCL XML or as an MSCCL++
/// plan (or refused).
/// Only when the data went to a file: on standard output the data is the answer.

#include <cstdint>
#include <string>

#include "core/imported.hpp"
#include "deploy/msccl_export.hpp"
#include "deploy/mscclpp_export.hpp"
#include "io/simgrid_trace.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

/// The formats `render_trace_import`, `render_msccl_import` and the export renderers take.
inline constexpr ReportFormat transfer_formats[] = {ReportFormat::text, ReportFormat::json};

struct TraceImportRun {
  std::string source;   ///< the trace file
  std::string output;   ///< the phase table's file
  std::string machine;  ///< describe() of the model it is judged on
  std::uint32_t call = 0;
  const io::TraceImport& trace;
  io::TraceCoverage coverage;
  std::size_t phases = 0;
};
/// JSON: {"command": "import", "format": "simgrid-trace", "verdict": "not-evaluated" (the table
/// is written, not checked: "next" says how), "source", "output", "state", "call", "calls",
/// "ranks", "messages", "phases", "pairs": {"messaged", "of", "repeated"}, "self_messages",
/// "topology", "next"}.
std::string render_trace_import(const TraceImportRun& run, ReportFormat format);

/// An imported program: MSCCL XML or an MSCCL++ plan (imported.format says which).
struct MscclImportRun {
  std::string source;  ///< the XML or plan file
  std::string output;  ///< the program's file ("" when refused)
  const Imported& imported;
  std::size_t phases = 0;
};
/// pass when its execution has no faults (the program is written), fail otherwise (nothing
/// written; each fault with the steps it involves). JSON: {"command": "import", "format":
/// "msccl" | "mscclpp", "verdict", "source", "output", "summary", "phases", "faults": [{"kind",
/// "explanation", "steps", "phase"}]}.
std::string render_msccl_import(const MscclImportRun& run, ReportFormat format);

struct MscclExportRun {
  std::string source;  ///< the schedule file
  std::string output;  ///< the XML's file
  const deploy::MscclExport& result;
};
/// Refused (the schedule's failing report), the exporter's own check failed (the read-back
/// report), or exported with the read-back checks counted ("5 checks pass, 1 not evaluated": a
/// check that did not run is never counted as passed). JSON: {"command": "export", "format":
/// "msccl", "verdict", "stage": "refused" | "self-check-failed" | "exported", "source", "output",
/// "steps", "gpus", "channels", "schedule": verify's report, "read_back": verify's report}.
std::string render_msccl_export(const MscclExportRun& run, ReportFormat format);

struct MscclppExportRun {
  std::string source;  ///< the schedule file
  std::string output;  ///< the plan's file
  const deploy::MscclppExport& result;
};
/// As render_msccl_export, for an MSCCL++ plan. JSON: {"command": "export", "format":
/// "mscclpp", "verdict", "stage", "source", "output", "ops", "threadblocks", "gpus", "schedule",
/// "read_back"}.
std::string render_mscclpp_export(const MscclppExportRun& run, ReportFormat format);

}  // namespace phasecheck::reports
