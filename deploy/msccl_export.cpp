#include "deploy/msccl_export.hpp"

#include <algorithm>
#include <vector>

#include "core/error.hpp"
#include "core/msccl.hpp"
#include "io/msccl_xml.hpp"
#include "schedules/buffers.hpp"
#include "schedules/registry.hpp"
#include "verify/verifier.hpp"

namespace phasecheck::deploy {
namespace {

/// Before the work: a gpu gets at least one threadblock per peer it sends to and one per peer it
/// receives from (programs/msccl_export.hpp), so a schedule in which some rank talks to more
/// peers than RCCL runs threadblocks cannot be exported, with any --channels. O(transfers).
void check_threadblocks(const Schedule& schedule, const std::string& source) {
  const Rank p = schedule.header.ranks();
  if (2 * std::uint64_t{p - (p > 0)} <= msccl::kMaxThreadblocks) return;  // every pair fits
  std::vector<std::vector<Rank>> to(p), from(p);
  const auto pair = [&](Rank src, Rank dst) {
    if (src == dst) return;
    to[src].push_back(dst);
    from[dst].push_back(src);
  };
  for (const Phase& phase : schedule.phases) {
    for (const Transfer& t : phase.transfers()) pair(t.src, t.dst);
    for (const BufferOp& op : phase.ops()) pair(op.src, op.dst);
  }
  const auto distinct = [](std::vector<Rank>& v) {
    std::sort(v.begin(), v.end());
    return static_cast<std::uint64_t>(std::unique(v.begin(), v.end()) - v.begin());
  };
  for (Rank r = 0; r < p; ++r) {
    const std::uint64_t sends = distinct(to[r]), receives = distinct(from[r]);
    if (sends + receives > msccl::kMaxThreadblocks)
      throw InputError(source + ": rank " + std::to_string(r) + " sends to " +
                       std::to_string(sends) + " peers and receives from " +
                       std::to_string(receives) + ": gpu " + std::to_string(r) +
                       " would run at least " + std::to_string(sends + receives) +
                       " threadblocks (one per peer and direction); RCCL runs at most " +
                       std::to_string(msccl::kMaxThreadblocks));
  }
}

}  // namespace

MscclExport export_msccl(const Schedule& schedule, const std::string& source,
                         const programs::MscclExportOptions& options) {
  MscclExport out;
  check_threadblocks(schedule, source);
  try {
    out.input =
        verify::verify(schedule, schedule.header.topology, schedules::claims_for(schedule.header));
  } catch (const InputError& e) {
    throw InputError(source + ": " + e.what());
  }
  if (out.input.verdict() != Verdict::pass) return out;  // refused

  // A phase table becomes the program a careful implementation runs (schedules/buffers.hpp).
  const Schedule program =
      schedule.header.buffers ? schedule : schedules::lower_to_buffers(schedule);
  const msccl::Program xml_program = [&] {
    try {
      return programs::to_msccl(program, options);
    } catch (const InputError& e) {  // the runtime's limits, as the program uses them
      throw InputError(source + ": " + e.what());
    }
  }();
  std::string xml = io::msccl_to_xml(xml_program);

  // The XML is what ships: read it back and judge it as any imported file.
  const Schedule back = msccl::lower(io::parse_msccl(xml, "<export>"), "<export>");
  out.read_back = verify::verify(back, back.header.topology);
  if (out.read_back.verdict() != Verdict::pass) {
    out.stage = MscclExport::Stage::self_check_failed;
    return out;
  }
  out.stage = MscclExport::Stage::exported;
  out.xml = std::move(xml);
  for (const msccl::Gpu& g : xml_program.gpus)
    for (const msccl::Threadblock& t : g.threadblocks) out.steps += t.steps.size();
  out.gpus = xml_program.ngpus;
  out.channels = xml_program.nchannels.value_or(0);
  return out;
}

}  // namespace phasecheck::deploy
