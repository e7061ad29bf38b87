#include "cli/checking.hpp"

#include "core/progress.hpp"
#include "distributed/processes.hpp"
#include "verify/parallel.hpp"

namespace phasecheck::cli {

pipeline::Spread spread(unsigned threads) {
  const distributed::Processes& processes = distributed::Processes::get();
  pipeline::Spread spread;
  spread.threads = threads != 0 ? threads : processes.spread() ? 1 : verify::default_threads();
  spread.share = processes.share();
  if (processes.spread()) {
    spread.gather = [&processes](const verify::Verifier::Partial& mine) {
      return processes.gather(mine);
    };
    if (processes.claims())
      spread.claim = [&processes](std::uint64_t b) { return processes.claim(b); };
    pipeline::Spread::Ranges ranges;
    ranges.index = static_cast<std::uint32_t>(processes.rank());
    ranges.count = static_cast<std::uint32_t>(processes.size());
    ranges.exchange = [&processes](const std::vector<std::vector<std::uint32_t>>& out) {
      return processes.exchange(out);
    };
    ranges.gather = [&processes](const verify::Verifier::RangeFindings& mine) {
      return processes.gather(mine);
    };
    spread.ranges = std::move(ranges);
  }
  spread.progress = processes.rank() == 0 ? terminal_stderr() : nullptr;
  return spread;
}

}  // namespace phasecheck::cli
