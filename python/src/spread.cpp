#include "python/src/spread.hpp"

#include "python/src/arrays.hpp"
#include "verify/parallel.hpp"

namespace phasecheck::python {

pipeline::Spread make_spread(const pybind11::handle& threads, Checkpoint& checkpoint) {
  pipeline::Spread spread;
  const auto n = static_cast<unsigned>(read_count(threads, "threads", 1024));
  spread.threads = n != 0 ? n : verify::default_threads();
  spread.checkpoint = [&checkpoint] { checkpoint(); };
  return spread;
}

}  // namespace phasecheck::python
