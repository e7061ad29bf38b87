#pragma once
/// Request-level programs replayed with no message buffered: the question whether a program
/// completes only because the library buffers small messages eagerly.
///
/// A rank's program is what it called, in order: posts of sends and receives (each a request)
/// and waits for one request. Rendezvous semantics: a send and the receive that takes it both
/// complete when both are posted, never earlier; a wait blocks until its request has completed.
/// Which receive takes which send is given (the matching the run made), so the replay is
/// deterministic and wildcards play no part. Blocked ranks that can never run again form a
/// cycle of ranks each waiting for the next to post (or a rank waiting for a partner that never
/// posts): that is the counterexample.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/schedule.hpp"
#include "core/verdict.hpp"

namespace phasecheck::programs {

struct RequestOp {
  enum class Kind { post, wait };
  Kind kind = Kind::post;
  std::uint32_t request = 0;  ///< the rank's request (index into its requests)
};

struct Request {
  bool send = false;
  Rank peer = 0;  ///< the other end
  /// The request on `peer` that completes with this one; empty: nothing ever matches it.
  std::optional<std::uint32_t> partner;
  std::string call;  ///< for messages: "MPI_Send to 1 (rank-0.jsonl:5)"
};

struct RequestProgram {
  std::vector<Request> requests;
  std::vector<RequestOp> ops;
};

/// The `deadlock` check. O(ops + requests).
CheckResult zero_buffering(const std::vector<RequestProgram>& programs);

}  // namespace phasecheck::programs
