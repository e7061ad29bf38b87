#pragma once
/// A verified schedule out to the MSCCL runtimes (msccl-tools, RCCL, NCCL's MSCCL): `phasecheck
/// export msccl`. The schedule is verified first and refused unless every check passes; a phase
/// table becomes the buffer program a careful implementation runs (core/buffer_lowering.hpp); the
/// program is compiled to MSCCL XML (programs/msccl_export.hpp); and the XML, which is what
/// ships, is read back, lowered and verified again like any imported file.

#include <cstdint>
#include <string>

#include "core/schedule.hpp"
#include "deploy/verified_export.hpp"
#include "programs/msccl_export.hpp"

namespace phasecheck::deploy {

/// The export's stage, reports and XML (deploy/verified_export.hpp), and what the XML holds.
struct MscclExport : VerifiedExport {
  std::uint64_t steps = 0;  ///< over every threadblock
  std::uint32_t gpus = 0, channels = 0;
};

/// Throws InputError (prefixed with `source`) when the schedule cannot be verified at all, or
/// the export options are invalid.
MscclExport export_msccl(const Schedule& schedule, const std::string& source,
                         const programs::MscclExportOptions& options);

}  // namespace phasecheck::deploy
