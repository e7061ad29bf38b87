#pragma once
/// The one table of algorithms. The CLI's `algorithms`, `generate` and `survey`, the examples
/// test and the property tests all loop over it; adding an algorithm adds one row here.

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/claims.hpp"
#include "core/parameter_spec.hpp"
#include "core/schedule.hpp"

namespace phasecheck::schedules {

/// An algorithm's direct phases of `range` for a header (Algorithm::generate_direct).
using GenerateDirect = std::function<void(const ScheduleHeader&, const DirectSink&, PhaseRange)>;

struct Algorithm {
  std::string_view name;
  std::string_view summary;
  std::string_view reference;  ///< paper and section
  /// Every parameter it takes, declared once (the algorithm's file owns the declaration). One is
  /// always `collective`, a Choice: make_header reads it into ScheduleHeader::collective.
  std::span<const ParameterSpec> parameter_specs;
  /// Emits the phases for `header` (its topology and parameters). Throws InputError when the
  /// parameters or the machine do not fit the algorithm, naming the problem.
  std::function<void(const ScheduleHeader&, const PhaseSink&)> generate;
  /// Its invariants and claimed phase count for this instance (core/claims.hpp).
  std::function<Claims(const ScheduleHeader&)> claims;
  /// Whether the algorithm claims that its schedule for `header` is contention-free on `model`
  /// (the machine it was made for, or a what-if).
  std::function<bool(const ScheduleHeader& header, const Topology& model)> contention_free_on;
  /// Segments per message the header's parameters ask for (ScheduleHeader::parts); empty: 1.
  std::function<std::uint32_t(const ScheduleHeader&)> parts = {};
  /// Its own buffer program (format 3) for `header`, with header.buffers set. Empty: its phase
  /// table lowered to buffers (core/buffer_lowering.hpp: receive into the final output slots).
  std::function<Schedule(const ScheduleHeader&)> program = {};
  /// Runs in place (MPI_IN_PLACE, format 4): its table and program start with each rank's data in
  /// the output and have no input; make_header sets ScheduleHeader::inplace.
  bool in_place = false;
  /// The library that ships it ("Open MPI", "MPICH", "NCCL", "RCCL"): the registry sets it from
  /// the folder its row comes from (shipped.hpp) unless the row names another (RCCL's row lives
  /// with NCCL's); empty for the papers' algorithms.
  std::string_view library = {};
  /// The one machine it runs on, when it refuses every other (RCCL's AllToAllPivot and its
  /// 16-GCD MI250X). Empty: any machine it accepts. The registry's generic tests check such a row
  /// there instead of on machines of their own.
  std::function<Topology()> only_machine = {};
  /// An alltoallv algorithm that cuts messages into pieces: the elements per piece for `header`
  /// (its traffic set), ScheduleHeader::piece_elements. Empty: whole messages.
  std::function<std::uint64_t(const ScheduleHeader&)> piece_elements = {};
  /// For an algorithm every phase of which carries own messages only: the phases `generate`
  /// emits, as direct phases (core/schedule.hpp), which the checks read without building a
  /// Phase (pipeline/check.hpp); only those the PhaseRange holds, the phases before it skipped
  /// at little cost (a process of a check split by phase range makes its range alone). Empty:
  /// only `generate`.
  GenerateDirect generate_direct = {};
};

/// Whether `algorithm` moves uneven messages (its collective is "alltoallv"): it needs a traffic
/// matrix, and its schedules carry it.
bool is_alltoallv(const Algorithm& algorithm);

std::span<const Algorithm> algorithms();
/// nullptr when there is no algorithm of that name.
const Algorithm* find_algorithm(std::string_view name);
/// The algorithm called `name`; InputError otherwise, with the closest name ("did you mean") and
/// the list of known ones.
const Algorithm& require_algorithm(std::string_view name);

/// What a schedule file claims, for the verifier: the claims of the registered algorithm its
/// header names, for that header; none for other names, and none for an imported program (MSCCL
/// XML), which is judged on its own: an algorithm's claims and invariants are about its phase
/// table, not a runtime program that happens to share its name.
Claims claims_for(const ScheduleHeader& header);

/// One line of help for the algorithm's parameters, in declaration order: "collective=alltoall
/// radix=2..p (default 2) ports=1..8192 (default: the machine's k, else 1)".
std::string parameter_summary(const Algorithm& algorithm);

/// A header for generating `algorithm` on `topology`: checks the parameters against the
/// algorithm's declaration on the machine's p (InputError names the key, the value and the range,
/// or the closest known key) and reads `collective` and the parts. An alltoallv algorithm takes
/// its traffic matrix, for the machine's p (InputError without one, or for another p); every
/// other algorithm refuses one.
ScheduleHeader make_header(const Algorithm& algorithm, Topology topology, Parameters parameters,
                           SharedTraffic traffic = {});

/// Generates the whole table in memory (tests, small cases).
Schedule generate(const Algorithm& algorithm, Topology topology, Parameters parameters = {},
                  SharedTraffic traffic = {});

/// The algorithm's buffer program (format 3) for `header` (from make_header): its own, or its
/// table lowered to buffers.
Schedule generate_program(const Algorithm& algorithm, const ScheduleHeader& header);

}  // namespace phasecheck::schedules
