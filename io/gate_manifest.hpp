#pragma once
/// The gate's manifest (docs/ci.md): {"format": "phasecheck.gate/1", "cases": [{"name",
/// "topology", one of "algorithm" (+ "parameters": {key: value}) | "generator" (a command:
/// topology JSON on stdin, schedule JSON on stdout) | "schedule" (a file), and "baseline": a
/// schedule file or its figures {"phases", "C1", "C2"}}]}. Paths are relative to the manifest.
///
/// A manifest decides what runs (its generators are commands) and what is read and written; the
/// gate confines its paths to the manifest's directory (ci/gate.hpp, docs/ci.md "Trust").

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/parameters.hpp"

namespace phasecheck::io {

inline constexpr const char* kGateFormat = "phasecheck.gate/1";

struct Figures {
  std::uint64_t phases = 0, c1 = 0, c2 = 0;
  friend bool operator==(const Figures&, const Figures&) = default;
};

struct GateCase {
  std::string name;
  std::string topology;   ///< resolved path
  std::string algorithm;  ///< one of algorithm, generator, schedule is set
  /// As written. They are checked against the algorithm's declaration when the case runs
  /// (schedules::make_header), not here: io/ does not include schedules/, and ranges such as
  /// radix=2..p need the machine's p, known only once the topology file is read.
  Parameters parameters;
  std::string generator;
  std::string schedule;                     ///< resolved path
  std::string baseline;                     ///< resolved path of a schedule file, or
  std::optional<Figures> baseline_figures;  ///< the accepted figures
};

struct GateManifest {
  std::string path;  ///< the file read
  std::vector<GateCase> cases;
};

/// A file a case names, with its place in the manifest ("cases[2].baseline").
struct GatePath {
  std::string field;
  std::string path;  ///< resolved as in GateCase
};

/// The files case `index` reads (and --update may write), in the order of the manifest's fields.
std::vector<GatePath> case_paths(const GateCase& c, std::size_t index);

/// Throws InputError naming the file and the JSON path (line:column for syntax errors).
GateManifest read_gate_manifest(const std::string& path);

/// Rewrites the figures baselines of the manifest at `path` (case i gets figures[i] when set),
/// leaving everything else as it is; the file is rewritten atomically, indented by 2, and only
/// when it lies inside one of `roots` (write_output).
void update_gate_figures(const std::string& path,
                         const std::vector<std::optional<Figures>>& figures,
                         const std::vector<std::string>& roots = {});

}  // namespace phasecheck::io
