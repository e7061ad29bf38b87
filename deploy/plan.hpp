#pragma once
/// What `phasecheck deploy` compiles: a verified schedule as per-rank step tables for the C
/// runtime (deploy/runtime.c). Faraj & Yuan's routine generator, Section 5, with the MPI runtime.
///
/// check() judges a schedule exactly as `phasecheck verify` does (verify::verify with the
/// registry's claims), lowers a phase table (versions 1-2) to its buffer program
/// (lower_to_buffers: a block lands in its final output slot, a relayed block waits in
/// scratch) and verifies that program too, builds the per-rank programs with the phase separation
/// the schedule needs (programs/program.hpp) and replays them (programs/replay.hpp). Only when
/// every one of these passes is there a Plan; otherwise `refusal` names the check.
///
/// make_plan() is the translation alone: each program op becomes a Step naming the slots it
/// reads and writes, and the Steps of a rank's phase that write a slot the phase also reads go
/// through staging memory, so that every op reads the phase's start and writes at its end (the
/// model's semantics) while the others move data straight from and into the user's buffers.

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/schedule.hpp"
#include "programs/program.hpp"
#include "verify/report.hpp"

namespace phasecheck::deploy {

/// The phase separation to deploy with. `automatic`: pair-wise synchronization on a routed model
/// of at most programs::kMaxSyncRanks ranks (barriers beyond), none on a fully connected model
/// whose ports never limit a phase (k >= p - 1), barriers on every other model (ports).
enum class SyncChoice { automatic, none, barrier, pairwise };
/// "auto", "none", "barrier" or "pairwise"; throws InputError otherwise.
SyncChoice parse_sync_choice(std::string_view name);
/// The separation `choice` gives on `model` with `ranks` ranks.
programs::Separation separation_for(SyncChoice choice, const Topology& model);

/// The most ranks a deployed schedule may have: its tables grow with p^2 messages.
inline constexpr Rank kMaxDeployRanks = 1024;
/// The most steps, over all ranks, of one deployed schedule (about 40 bytes each in the library).
inline constexpr std::uint64_t kMaxDeploySteps = std::uint64_t{1} << 24;

/// Slots `index` .. `index + count - 1` of one buffer. Output slots beyond p * chunks (which the
/// user's receive buffer does not have) are moved into scratch, after the program's own.
struct Segment {
  Buffer buffer = Buffer::input;
  std::uint32_t index = 0;
  std::uint32_t count = 0;
  friend bool operator==(const Segment&, const Segment&) = default;
};

/// One operation of a rank's program (programs::Op) with the slots it moves.
struct Step {
  programs::Op::Kind kind = programs::Op::Kind::wait;
  bool staged = false;  ///< send: packs several segments; recv, copy: written after the wait
  Rank peer = 0;
  std::uint32_t phase = 0;
  std::vector<Segment> from;  ///< send, copy
  std::vector<Segment> to;    ///< recv, copy
  std::uint32_t chunks = 0;   ///< send, recv, copy: chunks moved
  std::uint32_t staging = 0;  ///< staged: offset in the rank's staging memory, in chunks
  friend bool operator==(const Step&, const Step&) = default;
};

struct RankPlan {
  std::vector<Step> steps;
  std::uint32_t staging = 0;   ///< staging memory, in chunks: the most one phase holds
  std::uint32_t requests = 0;  ///< the most nonblocking requests outstanding at once
  friend bool operator==(const RankPlan&, const RankPlan&) = default;
};

struct Plan {
  std::string algorithm;
  std::string source;  ///< the schedule's file, for comments and messages
  Collective collective = Collective::alltoall;
  /// MPI_Alltoallv: the count-independent pattern of an alltoallv schedule (deploy/v_pattern.hpp),
  /// planned as an alltoall of one chunk per message; the runtime moves each call's own counts.
  bool alltoallv = false;
  Rank ranks = 0;
  std::uint32_t chunks = 1;
  bool inplace = false;           ///< allgather program without an input buffer
  std::uint32_t scratch = 0;      ///< scratch slots per rank, spare output slots included
  std::uint32_t max_message = 0;  ///< chunks of the largest message or copy
  programs::Separation separation = programs::Separation::none;
  std::vector<std::string> phase_labels;
  std::vector<RankPlan> programs;  ///< one per rank
  std::string verdict;  ///< what verification said (tally): "5 checks pass, 1 not evaluated"
  friend bool operator==(const Plan&, const Plan&) = default;
};

/// "alltoallv" for an alltoallv's plan, else the collective's name.
std::string collective_name(const Plan& plan);
/// The MPI routine a plan serves: "MPI_Alltoall", "MPI_Allgather" or "MPI_Alltoallv".
std::string mpi_name(const Plan& plan);

/// The plan of a buffer program (header.buffers) and its per-rank programs. Throws InputError
/// for an op beyond a buffer (the verifier reports it as a placement failure first).
Plan make_plan(const Schedule& program, const std::vector<programs::RankProgram>& rank_programs,
               programs::Separation separation, std::string source);

/// A schedule judged for deployment.
struct Checked {
  std::string source;
  verify::Report report;                      ///< the schedule as `phasecheck verify` judges it
  std::optional<verify::Report> lowered;      ///< versions 1-2: its buffer program's verification
  std::optional<verify::CheckResult> replay;  ///< the per-rank programs replayed together
  programs::Separation separation = programs::Separation::none;
  std::string refusal;       ///< why it is not deployed ("delivery failed"); empty when it is
  std::optional<Plan> plan;  ///< present exactly when refusal is empty
  /// pass when it deploys (a plan was made), fail when it is refused.
  Verdict verdict() const { return plan ? Verdict::pass : Verdict::fail; }
};

/// Verifies, lowers, builds and replays as described on top. An alltoallv schedule is verified
/// as it is, then refused unless it is count-independent (deploy/v_pattern.hpp); its pattern is
/// lowered, verified, programmed and replayed instead of it. Throws InputError for a schedule
/// that cannot be deployed whatever its verdict (more than kMaxDeployRanks ranks or
/// kMaxDeploySteps steps, --sync pairwise on a model that does not route).
Checked check(const Schedule& schedule, std::string_view source, SyncChoice sync);

std::ostream& operator<<(std::ostream& os, const Segment& s);  ///< "output[3..4]"
std::ostream& operator<<(std::ostream& os, const Step& s);

}  // namespace phasecheck::deploy
