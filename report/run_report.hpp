#pragma once
/// What `run`, `simulate` and `whatif experiment` found (experiments/mpi_run.hpp,
/// experiments/faraj_yuan_experiment.hpp), for a person (text) and for a program (JSON; shapes in
/// docs/formats.md, "Command reports"). Deterministic but for the experiment's wall time.

#include <string>

#include <nlohmann/json.hpp>

#include "experiments/faraj_yuan_experiment.hpp"
#include "experiments/mpi_run.hpp"
#include "report/format.hpp"

namespace phasecheck::reports {

/// The formats of `run`'s and `simulate`'s reports: `run_text`, and `run_json` or `simulate_json`.
inline constexpr ReportFormat run_formats[] = {ReportFormat::text, ReportFormat::json};

/// The verdict line (PASS when every byte arrived as sent), the size, separation and verdict of
/// the table, both times per call and their ratio; a simulated alltoall's aggregate throughput
/// against the peak bound (and a FAIL line when it beats it); then the ranks' error lines, "..."
/// when the runner counted more errors than lines.
std::string run_text(const experiments::RunOutcome& outcome);

/// `run --report json`: {"command": "run", "verdict", "schedule", "algorithm", "collective",
/// "ranks", "where", "bytes", "chunk_bytes", "separation", "repeats", "data_errors",
/// "error_lines", "table", "seconds": {"schedule", "library"}, "library", "ratio"}.
nlohmann::ordered_json run_json(const experiments::RunOutcome& outcome);

/// `simulate --report json`: as run_json with "command": "simulate", and "throughput_MBps":
/// {"schedule", "library", "peak_bound", "exceeds_peak"} for an alltoall, else null.
nlohmann::ordered_json simulate_json(const experiments::RunOutcome& outcome);

/// The experiment's first line: what the table shows and on which network.
std::string faraj_yuan_heading(const experiments::FarajYuanQuestion& question);

/// One machine of the experiment: a blank line, its name, tree, bottleneck and wall time, a blank
/// line, its table, then one line per failure note.
std::string faraj_yuan_machine_text(const experiments::FarajYuanMachine& machine);

}  // namespace phasecheck::reports
