#pragma once
/// What `phasecheck deploy` did (deploy/deploy.hpp), for a person (text) and for a program (JSON;
/// docs/formats.md): each schedule verified and served, or the one refused with its report.

#include <string>

#include "deploy/deploy.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::reports {

struct DeployRun {
  std::string output;  ///< the library, or the C file
  bool emit_c = false;
  const deploy::Outcome& outcome;
};

/// The formats `render_deploy` takes.
inline constexpr ReportFormat deploy_formats[] = {ReportFormat::text, ReportFormat::json};

/// Text: a line per schedule ("verified  bruck-index (alltoall) on 8 ranks [...]: all 5 checks
/// pass; --sync none; serves MPI_Alltoall on communicators of 8 ranks") and what was written; or,
/// refused, each refused schedule's reason, its report and the replay's counterexample. JSON:
/// {"command": "deploy", "verdict", "output": null | OUT, "emit_c", "schedules": [{"source",
/// "verdict", "refusal": null | why, "algorithm", "collective", "ranks", "sync", "serves": null
/// | "MPI_Alltoall" | "MPI_Allgather", "function": null | name, "report": verify's report,
/// "buffer_program": null | verify's report of the lowered table, "replay": null | CHECK}]}.
std::string render_deploy(const DeployRun& run, ReportFormat format);

}  // namespace phasecheck::reports
