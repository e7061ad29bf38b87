#include "deploy/mscclpp_export.hpp"

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/mscclpp.hpp"
#include "io/mscclpp_plan.hpp"
#include "verify/mscclpp_execution.hpp"

namespace phasecheck::deploy {

MscclppExport export_mscclpp(const Schedule& schedule, const std::string& source,
                             const programs::MscclppExportOptions& options) {
  MscclppExport out;
  if (schedule.header.traffic)  // a plan's chunks are of one size
    throw InputError(
        input_name(source) +
        ": an alltoallv is not exported to an MSCCL++ plan (its chunks have one size)");
  programs::check_options(options);  // before the work
  mscclpp::Plan plan;
  export_verified(
      schedule, source, out,
      [&](const Schedule& program) {
        // (An InputError here: the executor's limits, as the program uses them.)
        plan = programs::to_mscclpp(program, options);
        return io::mscclpp_plan_to_json(plan);
      },
      [](const std::string& json) {
        return mscclpp::lower(io::parse_mscclpp_plan(json, "<export>"), "<export>");
      });
  if (out.stage != MscclppExport::Stage::exported) return out;
  out.gpus = static_cast<std::uint32_t>(plan.gpus.size());
  for (const mscclpp::Gpu& g : plan.gpus) {
    out.threadblocks += g.threadblocks.size();
    for (const mscclpp::Threadblock& t : g.threadblocks) out.ops += t.ops.size();
  }
  return out;
}

}  // namespace phasecheck::deploy
