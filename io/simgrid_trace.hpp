#pragma once
/// SimGrid Paje traces (smpirun --cfg=tracing:yes --cfg=tracing/smpi:yes
/// --cfg=tracing/smpi/internals:yes) turned into phase tables at the pattern level: who sends to
/// whom, in which order, inside one call of a collective (docs/run.md).
///
/// The trace's header defines its events (%EventDef NAME ID, then the fields in order), so the
/// reader looks fields up by name. Ranks are the containers named "rank-N"; a PajeStartLink
/// starts a point-to-point message from StartContainer to the container named in its key
/// "src_dst_tag_seq" (container aliases). A message belongs to the collective when its sender is
/// inside the state of that name (PajePushState ... PajePopState, PMPI_Alltoall by default), and
/// to call c when it is the sender's (c + 1)-th entry into that state.

#include <cstdint>
#include <string>
#include <vector>

#include "core/schedule.hpp"

namespace phasecheck::io {

struct TracedMessage {
  Rank src = 0, dst = 0;
  std::uint32_t step = 0;  ///< position among the sender's messages in this call
  double time = 0;         ///< simulated start time
};

struct TraceImport {
  Rank ranks = 0;
  std::string state;                    ///< the collective's state name, e.g. PMPI_Alltoall
  std::uint32_t calls = 0;              ///< calls of it found (the most any rank made)
  std::vector<TracedMessage> messages;  ///< of the chosen call, by sender then step
};

/// Reads `path`; `call` picks the call (0: the first). Throws InputError naming the file and the
/// line for malformed traces, a missing state or call, or no ranks.
TraceImport read_simgrid_trace(const std::string& path, const std::string& state = "PMPI_Alltoall",
                               std::uint32_t call = 0);

/// Which pairs the call messaged: distinct ordered pairs of different ranks (of all_pairs =
/// ranks (ranks - 1)), those messaged more than once, and messages a rank sent itself.
struct TraceCoverage {
  std::size_t pairs = 0, repeated = 0, self = 0;
  std::uint64_t all_pairs = 0;
};
TraceCoverage coverage(const TraceImport& trace);

/// The pattern as a phase table on `model`: phase j holds every rank's (j+1)-th message of the
/// call, each carrying the direct block [src, dst] of `collective`. So delivery checks that every
/// pair is messaged exactly once (true of direct algorithms; a forwarding one such as Bruck's
/// shows as pairs missing), and contention checks each step as if ranks moved in lockstep.
Schedule trace_schedule(const TraceImport& trace, const Topology& model, Collective collective);

}  // namespace phasecheck::io
