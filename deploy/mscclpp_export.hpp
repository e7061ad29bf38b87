#pragma once
/// A verified schedule out to MSCCL++'s executor: `phasecheck export mscclpp`. The schedule is
/// verified first and refused unless every check passes (deploy/verified_export.hpp); its buffer
/// program becomes an execution plan (programs/mscclpp_export.hpp); and the plan's JSON, which
/// is what ships, is read back (io/mscclpp_plan.hpp), lowered by the executor's model
/// (verify/mscclpp_execution.hpp) and verified again like any imported plan.

#include <cstdint>
#include <string>

#include "core/schedule.hpp"
#include "deploy/verified_export.hpp"
#include "programs/mscclpp_export.hpp"

namespace phasecheck::deploy {

/// The export's stage, reports and JSON (deploy/verified_export.hpp), and what the plan holds.
struct MscclppExport : VerifiedExport {
  std::uint64_t ops = 0;           ///< over every threadblock
  std::uint64_t threadblocks = 0;  ///< over every gpu
  std::uint32_t gpus = 0;
};

/// Throws InputError (prefixed with `source`) for an alltoallv (a plan's chunks have one size),
/// when the schedule cannot be verified at all, for invalid options, and when the plan would
/// pass the executor's limits (programs/mscclpp_export.hpp).
MscclppExport export_mscclpp(const Schedule& schedule, const std::string& source,
                             const programs::MscclppExportOptions& options);

}  // namespace phasecheck::deploy
