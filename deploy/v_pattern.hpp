#pragma once
/// Which alltoallv schedules `phasecheck deploy` serves MPI_Alltoallv with, and the pattern it
/// deploys for them (docs/run.md, "Deploy").
///
/// At run time every call brings its own counts, so a deployed alltoallv schedule must be right
/// for every matrix, not only for the one it was generated and verified on. It is when it is
/// count-independent: each message travels whole, straight from its origin to its destination
/// (no forwarding, no aggregation, no pieces), in a phase that the counts do not decide
/// (linear-v, pairwise-v, scattered-v: the libraries' orders, zero counts skipped on both
/// sides). A schedule shows that it is such a pattern when every transfer carries exactly its
/// own whole message [s, d] and the matrix it was made from has no zero off-diagonal count, so
/// that the schedule places every message. bvn (messages cut into pieces across phases by the
/// matrix's decomposition) and the two-stage variant (messages aggregated through a local index)
/// need the whole matrix and are not deployed.

#include <optional>
#include <string>

#include "core/claims.hpp"
#include "core/schedule.hpp"

namespace phasecheck::deploy {

/// Why the alltoallv schedule `v` (header.traffic set) is not a count-independent pattern, or
/// nothing when it is. O(transfers + p^2).
std::optional<std::string> count_dependence(const Schedule& v);

/// The pattern of a count-independent alltoallv schedule: the same phases as an alltoall of one
/// block per message (traffic dropped, every message present), which is lowered, programmed and
/// replayed like any alltoall. Precondition: count_dependence(v) is empty.
Schedule uniform_pattern(const Schedule& v);

/// What the pattern keeps of the alltoallv's claims: all but its cost in bytes, which a pattern
/// of counts no longer has.
Claims pattern_claims(Claims v);

}  // namespace phasecheck::deploy
