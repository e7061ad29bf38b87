#pragma once
/// The phasecheck subcommands as plain functions: arguments in, exit code out (0 all checks pass,
/// 1 a check failed, 2 bad input). They throw InputError for bad input; main() maps it to 2.
/// Kept apart from main.cpp so that only main.cpp pays for CLI11.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "core/claims.hpp"
#include "core/limits.hpp"
#include "core/network_options.hpp"
#include "core/topology.hpp"
#include "properties/fuzz.hpp"
#include "report/table.hpp"
#include "report/verify_report.hpp"

namespace phasecheck::cli {

int list_algorithms(const std::string& report, std::ostream& out);

struct GenerateArgs {
  std::string algorithm;
  std::string topology;          ///< topology file
  std::vector<std::string> set;  ///< key=value parameters
  std::string output;            ///< file; empty or "-" for standard output
  bool buffers = false;          ///< format 3: the buffer program
  std::string format = "json";   ///< json | binary (io/schedule_binary.hpp; phase tables)
};
int generate(const GenerateArgs& args, std::ostream& out);

struct VerifyArgs {
  std::string schedule;         ///< schedule file, or "-" for standard input
  std::string topology;         ///< optional what-if model
  std::string report = "text";  ///< text | json | junit
  std::string output;           ///< report file; empty for standard output
  unsigned threads = 0;         ///< 0: the machine's cores
  std::string svg;              ///< draw the first failure's counterexample here (cli/draw.hpp)
};
/// `err`: the note of --svg when there is nothing to draw.
int verify(const VerifyArgs& args, std::ostream& out, std::ostream& err);

struct CheckArgs {
  std::string algorithm;
  std::string topology;          ///< topology file, or "-" for standard input
  std::vector<std::string> set;  ///< key=value parameters
  std::string report = "text";   ///< text | json | junit
  std::string output;            ///< report file; empty for standard output
  unsigned threads = 0;          ///< 0: the machine's cores
};
/// `generate | verify` in one pass (pipeline/check.hpp): the same report, the schedule never
/// held. Exit 0 when every check that applies passes, 1 otherwise.
int check(const CheckArgs& args, std::ostream& out);

struct CostArgs {
  std::string schedule;         ///< schedule file, or "-" for standard input
  std::string topology;         ///< optional what-if model
  double ts = 0, tw = 0;        ///< seconds per message, seconds per byte
  std::uint64_t bytes = 0;      ///< the message (block) size in bytes: m of the model
  double m_alias = 0;           ///< the old --m (one release, with a note); 0: not given
  std::string report = "text";  ///< text | json
  std::string output;
};
/// The schedule's time under the linear cost model next to the algorithm's closed forms and the
/// model's bound. Exit 1 when the schedule fails a check or does not match its own equations.
int cost(const CostArgs& args, std::ostream& out);

struct SyncArgs {
  std::string schedule;         ///< schedule file
  std::string topology;         ///< optional what-if model
  bool list = false;            ///< print every synchronization message
  std::string report = "text";  ///< text | json
};
/// Pair-wise synchronization (Faraj & Yuan, Section 5): counts before and after the transitive
/// reduction, and the check that the kept ones order every contending pair. Exit 1 when the
/// table does not verify or a pair is left unordered.
int sync(const SyncArgs& args, std::ostream& out);

struct ProgramArgs {
  std::string schedule;           ///< schedule file
  std::vector<unsigned> ranks;    ///< ranks whose listing to print
  std::string sync = "pairwise";  ///< none | barrier | pairwise
  std::string output;             ///< JSON file for all programs; empty: none
  std::string report = "text";    ///< text | json
};
/// Per-rank programs of a verified table, replayed together; exit 1 when the table does not
/// verify or the replay finds a deadlock, a missing message or contending messages overlapping.
int program(const ProgramArgs& args, std::ostream& out);

struct CongestionArgs {
  std::string schedule;
  std::string topology;         ///< optional what-if model (routed)
  bool phases = false;          ///< print every phase's loads
  std::string report = "text";  ///< text | json | csv (csv: the --phases table)
};
/// Link loads per phase on a routed model and their sum of maxima; exit 1 if delivery fails.
int congestion(const CongestionArgs& args, std::ostream& out);

struct OptimalArgs {
  std::string topology;
  std::string collective = "alltoall";
  double timeout = 60;                   ///< seconds per solver call
  std::string mode = "direct";           ///< direct or forwarding
  std::string symmetry = "clique";       ///< clique, first or none (to measure it)
  std::string encoding = "cardinality";  ///< cardinality or pairwise (to measure it)
  std::uint64_t max_transfer = 0;        ///< forwarding: blocks per transfer (0: no limit)
  std::string smt2;                      ///< write the instance as SMT-LIB2
  std::string output;                    ///< write the optimal schedule
  std::string report = "text";           ///< text | json
};
/// The minimal phase count of a direct schedule on the machine, proven with Z3
/// (verify/optimal.hpp). Exit 0 when proven, 1 when unknown (a timeout) or a witness fails the
/// checkers.
int optimal(const OptimalArgs& args, std::ostream& out);

struct MutateArgs {
  std::string schedule;
  std::string topology;  ///< optional what-if model
  std::uint32_t per_class = 50;
  std::uint64_t seed = 1;
  std::string report = "text";  ///< text | json
};
/// Plants single faults and checks that every invalid mutant is caught (properties/mutate.hpp).
int mutate(const MutateArgs& args, std::ostream& out);

struct TopologyArgs {
  std::string kind;        ///< one of core/network_options.hpp's network_kinds()
  NetworkOptions options;  ///< each set only when given
  std::string output;
};
/// The networks `topology` writes, in the order the help lists them.
inline const std::vector<std::string>& topology_kinds() {
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> names;
    for (const NetworkKind& k : network_kinds()) names.emplace_back(k.name);
    return names;
  }();
  return kinds;
}
/// Writes a built machine as a topology file (core/network_options.hpp, core/networks.hpp).
int topology(const TopologyArgs& args, std::ostream& out);

struct BoundsArgs {
  std::string topology;
  std::string collective = "alltoall";
  double bandwidth = 0;  ///< link bandwidth B in bytes/s for a tree's throughput bound; 0: symbolic
  std::string report = "text";  ///< text | json | csv
};
int bounds(const BoundsArgs& args, std::ostream& out);

/// Generates and verifies every registered algorithm on each topology file and prints a table of
/// verdicts and phases against the lower bound. Exit 1 when an algorithm breaks a claim (delivery,
/// invariants, phase count, or contention on a model it claims to be contention-free on).
struct SurveyArgs {
  std::vector<std::string> topologies;  ///< topology files; "-": standard input (once)
  std::string report = "text";          ///< text | json | csv
};
int survey(const SurveyArgs& args, std::ostream& out);

struct WhatIfArgs {
  std::string question;            ///< hierarchical-factor, bruck-index, congestion, optimality
  std::string report = "text";     ///< text | json | csv
  std::vector<std::string> sizes;  ///< node-size vectors, "8,8,4,1"
  std::string sizes_file;          ///< one vector per line, '#' comments
  /// cluster: this many random clusters of 2..max_ranks ranks, drawn from `seed`; 0: none.
  unsigned random = 0;
  std::uint64_t seed = 1;
  // bruck-index: the machine and the linear model.
  unsigned ranks = 0, ports = 1;
  double ts = 0, tw = 0;   ///< seconds per message, seconds per byte
  double block_alias = 0;  ///< the old --block (one release, with a note); 0: not given
  // congestion: a routed machine, the algorithms to compare, the seeds of randomized ones.
  std::string topology;
  std::string algorithms = "shift,randomized-sendrecv";
  std::string seeds = "1..20";
  /// --bytes: message sizes in bytes. bruck-index: the block (one value, default 1); congestion:
  /// the size for the paper's algorithm selection (one value; none: not shown); experiment: the
  /// sizes simulated (default 8 KiB to 256 KiB).
  std::vector<std::uint64_t> bytes;
  // optimality: a family of machines (cluster, tree, kport) up to a size, solver timeout per call.
  std::string family = "cluster";
  unsigned max_ranks = 6;     ///< cluster and kport
  unsigned max_machines = 6;  ///< tree
  double timeout = 60;        ///< optimality: per solver call; experiment: per simulation
  // experiment: a paper's measurements, simulated by SimGrid on its machines.
  std::string paper = "faraj-yuan";
  std::vector<std::string> topologies;  ///< tree files; empty: the paper's (examples/)
  std::vector<unsigned> message_kb;     ///< the old --message-kb (one release, with a note)
  std::string bandwidth = "100Mbps", latency = "10us";
  std::string out_dir;  ///< where the throughput plots go; empty: none
};
/// A research table for a family of instances; exit 1 if any instance fails a check.
int whatif(const WhatIfArgs& args, std::ostream& out);
/// `whatif experiment --paper faraj-yuan` (cli/run.cpp): Figs. 6-8 of Faraj & Yuan simulated by
/// SimGrid: completion times of our schedules and of SimGrid's alltoall implementations per
/// message size, and throughput plots (SVG) with the peak bound.
int whatif_experiment(const WhatIfArgs& args, reports::TableFormat format, std::ostream& out);

struct RunArgs {
  std::string schedule;
  unsigned np = 0;             ///< 0: the schedule's ranks; anything else must equal them
  std::uint64_t bytes = 1024;  ///< per message
  std::string sync = "barrier";
  unsigned repeats = 5;
  double timeout = 300;         ///< seconds for the whole mpirun
  std::string report = "text";  ///< text | json
};
/// Runs the schedule's per-rank programs under Open MPI (cli/run.cpp, docs/run.md); exit 1 when
/// any byte arrives wrong or not at all.
int run(const RunArgs& args, std::ostream& out);

struct SimulateArgs {
  std::string schedule, topology;  ///< topology: a tree, the simulated network
  std::string bandwidth = "100Mbps", latency = "10us";
  std::uint64_t bytes = 65536;
  std::string sync = "barrier";
  std::string library;  ///< SimGrid's alltoall algorithm to compare with; empty: its default
  unsigned repeats = 3;
  double timeout = 600;
  std::string trace;            ///< write SimGrid's Paje trace here (for `import simgrid-trace`)
  std::string report = "text";  ///< text | json
};
/// Runs them under SimGrid's smpirun on a platform built from the tree; simulated time.
int simulate(const SimulateArgs& args, std::ostream& out);

struct ImportArgs {
  std::string format;  ///< simgrid-trace
  std::string file;
  std::string topology;  ///< the machine the table is judged on; empty: fully-connected, 1 port
  std::string state = "PMPI_Alltoall";
  unsigned call = 0;
  std::string collective = "alltoall";
  std::string output;           ///< empty: the table on standard output
  std::string report = "text";  ///< text | json (json: with -o FILE)
};
/// Whether a data command (import, export) writes its data to standard output ("" or "-").
bool data_to_stdout(const std::string& output);
/// A data command's --report: text or json, and json only when the data goes to a file (on
/// standard output the data itself is the answer). InputError naming `command` otherwise.
reports::ReportFormat data_command_report(const std::string& report, const std::string& output,
                                          const std::string& command);

/// A SimGrid Paje trace of a collective turned into a phase table (io/simgrid_trace.hpp).
int import_trace(const ImportArgs& args, std::ostream& out);

struct ExportArgs {
  std::string format;    ///< msccl
  std::string schedule;  ///< any schedule file (versions 1-3, or MSCCL XML); "-": standard input
  std::string output;    ///< the XML; empty or "-": standard output
  std::string name;      ///< the algo's name; empty: the schedule's algorithm
  std::string protocol = "Simple";
  std::uint32_t channels = 1;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  std::string report = "text";  ///< text | json (json: with -o FILE)
};
/// MSCCL XML in (`import msccl`): the program lowered to format 3 (core/msccl.hpp). Exit 1, and
/// nothing written, when its execution faults (deadlock, race, ...): the JSON would not carry
/// them.
int import_msccl(const ImportArgs& args, std::ostream& out);
/// A verified schedule as MSCCL XML (programs/msccl_export.hpp). Verifies first and refuses
/// (exit 1) a schedule that fails; checks the XML it made by lowering and verifying it again.
int export_msccl(const ExportArgs& args, std::ostream& out);

struct LintArgs {
  std::string format;              ///< msccl
  std::vector<std::string> files;  ///< MSCCL XML files; "-": standard input (once)
  std::string report = "text";     ///< text | json | junit
  std::string output;              ///< the report; empty or "-": standard output
};
/// `lint msccl` (verify/msccl_lint.hpp): attribute problems per file, size-range overlaps and gaps
/// across them. Exit 1 when a finding is an error, 0 when there are only warnings.
int lint_msccl(const LintArgs& args, std::ostream& out);

struct DiffArgs {
  std::string before, after;  ///< schedule files: the accepted one and the changed one
  std::string topology;       ///< judge both on this model instead of their own
  std::string report = "text";
  std::vector<std::string> allow;  ///< regressions that do not fail: more-phases, larger-c2, ...
};
/// What a change did to a schedule (cli/gate.cpp, docs/ci.md); exit 1 on a regression.
int diff(const DiffArgs& args, std::ostream& out);

struct GateArgs {
  std::string manifest;
  std::string report = "text";
  std::vector<std::string> allow;
  bool update = false;   ///< rewrite the baselines with what the cases give now
  double timeout = 300;  ///< seconds for one run of a case's external generator
  std::vector<std::string> allow_outside;  ///< directories the manifest's paths may lead into
  bool no_generators = false;              ///< refuse the manifest's generator cases
};
/// Every case of a manifest regenerated and diffed against its baseline; exit 1 on a failure.
int gate(const GateArgs& args, std::ostream& out);

/// A fuzz campaign (properties/fuzz.hpp): a line per algorithm as it finishes (text), or one JSON
/// document. Exit 0 when every algorithm passed, 1 on a failure or when nothing was evaluated.
int fuzz(const properties::FuzzOptions& options, const std::string& report, std::ostream& out,
         std::ostream& progress);

}  // namespace phasecheck::cli
